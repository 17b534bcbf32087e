/**
 * The guarantee audit (issue 25): each image through Presso at each lossy format and level, the output
 * scored as an outside auditor scores it (reference-decoders.ts: Debian's djpeg/dwebp/avifdec on both sides,
 * SSIMULACRA 2 on the whole image), beside the score Presso's own check reads. Prints every output, the
 * ones below their level and the smallest margin; writes bench/results/audit-<time>.json.
 *
 * Usage: node bench/images/audit.ts [--quick] [--formats jpeg,webp,avif] [--levels high,medium,ultra]
 *        [--corpus bench|train] [files…]
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { detectFile } from '../../src/media/detect.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { QUALITY_TARGETS } from '../../src/processors/image/quality/targets.ts';
import { auditScore } from '../../test/support/debian-decoders.ts';
import { benchSample } from './sample.ts';
import { trainingSample } from './training-sample.ts';

type Level = keyof typeof QUALITY_TARGETS;

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const formats = (option('--formats') ?? 'jpeg,webp,avif').split(',');
const levels = (option('--levels') ?? 'high').split(',') as Level[];
const quick = args.includes('--quick');
const valued = new Set(['--formats', '--levels', '--corpus']);
const named = args.filter((a, i) => !a.startsWith('--') && !valued.has(args[i - 1] ?? ''));
const root = resolve(import.meta.dirname, '../..');

function defaultFiles(): string[] {
  if (option('--corpus') === 'train') return trainingSample(join(root, '.corpus/train'), quick);
  const sample = benchSample(join(root, '.corpus/bench'), quick);
  return [...new Set([...sample.photos, ...sample.lossy])];
}

const files = named.length > 0 ? named.map((f) => resolve(f)) : defaultFiles();
const processor = createImageProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });
const work = mkdtempSync(join(tmpdir(), 'presso-audit-run-'));
const rows: { file: string; format: string; level: Level; bytes: number; score: number; target: number }[] =
  [];

for (const file of files) {
  const detected = await detectFile(file);
  if (detected === undefined) continue;
  for (const format of formats) {
    for (const level of levels) {
      const dir = mkdtempSync(join(work, 'job-'));
      const result = await processor.process({
        input: { ...detected, path: file, name: basename(file), size: statSync(file).size },
        params: { format, compression: level },
        workDir: dir,
        signal: new AbortController().signal,
        wantMetadata: false,
      });
      const audit = await auditScore(file, result.path, result.format);
      const row = {
        file: basename(file),
        format: result.format,
        level,
        bytes: statSync(result.path).size,
        score: audit.score,
        reference: audit.reference,
        target: QUALITY_TARGETS[level],
      };
      rows.push(row);
      const mark = row.score >= row.target ? 'ok  ' : 'BELOW';
      const ref = row.reference === undefined ? '' : `, reference ${row.reference.toFixed(2)}`;
      console.log(
        `${mark} ${row.format} ${level} ${row.file}: ${row.bytes} B, whole image on Debian decoders ${row.score.toFixed(2)}${ref} (target ${row.target})`,
      );
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
rmSync(work, { recursive: true, force: true });

const below = rows.filter((r) => r.score < r.target);
const margins = rows.map((r) => r.score - r.target);
console.log(
  `\n${rows.length - below.length} of ${rows.length} outputs meet their level on Debian's decoders (whole image); ` +
    `smallest margin ${Math.min(...margins).toFixed(2)}, median ${margins.sort((a, b) => a - b)[Math.floor(margins.length / 2)]?.toFixed(2)}`,
);
const out = join(root, 'bench/results');
mkdirSync(out, { recursive: true });
const path = join(out, `audit-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(path, JSON.stringify({ rows }, null, 2));
console.log(`wrote ${path}`);
