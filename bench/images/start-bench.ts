/**
 * Trials, bytes and CPU of the lossy quality search per output (issue 25, the start predictor): every
 * benchmark image (bench/images/sample.ts: the photos, the lossy inputs and the PNGs) as JPEG, WebP and AVIF
 * at each level asked, through `tunedLossy` (the proxy search plus the whole-output check) in this process,
 * one output at a time. CPU is this process's user+sys across the output (`process.cpuUsage()`: libvips'
 * and the encoders' threads included; no sandboxed tool runs on this path); trials are the proxy trials the
 * search ran (load does not move them). One JSON line per output to bench/results/start-<label>-<time>.jsonl.
 *
 * Usage: node bench/images/start-bench.ts <label> [--levels high,medium] [--formats jpeg,webp,avif] [--all-pngs] [files…]
 *        node bench/images/start-bench.ts --compare before.jsonl after.jsonl
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import sharp from 'sharp';
import type { LossyFormat } from '../../src/processors/image/encoders.ts';
import { type TuningReport, tunedLossy } from '../../src/processors/image/lossy-tuning.ts';
import type { LossyLevel } from '../../src/processors/image/quality/targets.ts';
import { benchSample } from './sample.ts';

interface Line {
  file: string;
  format: LossyFormat;
  level: LossyLevel;
  bytes: number;
  /** Start of the output's SHA-1: the same bytes before and after, or not. */
  sha: string;
  quality: number | undefined;
  trials: number;
  score: number | undefined;
  cpuMs: number;
  wallMs: number;
  load: number;
}

const root = resolve(import.meta.dirname, '../..');
const C = resolve(root, process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench');
const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

function compare(beforePath: string, afterPath: string): void {
  const read = (p: string) =>
    readFileSync(p, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Line);
  const before = read(beforePath);
  const after = new Map(read(afterPath).map((l) => [`${l.file}/${l.format}/${l.level}`, l]));
  const groups = new Map<string, [Line, Line][]>();
  for (const b of before) {
    const a = after.get(`${b.file}/${b.format}/${b.level}`);
    if (a === undefined) continue;
    const k = `${b.format} ${b.level}`;
    groups.set(k, [...(groups.get(k) ?? []), [b, a]]);
  }
  console.log(
    '| output | n | trials median/p95/mean before → after | CPU s median/p95 before → after | bytes after/before | same bytes / larger / smaller |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [k, pairs] of [...groups].sort()) {
    const t = (side: 0 | 1) => pairs.map((p) => p[side].trials);
    const c = (side: 0 | 1) => pairs.map((p) => p[side].cpuMs / 1000);
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const bytes = (side: 0 | 1) => pairs.reduce((s, p) => s + p[side].bytes, 0);
    const larger = pairs.filter((p) => p[1].bytes > p[0].bytes).length;
    const same = pairs.filter((p) => p[1].sha === p[0].sha).length;
    const smaller = pairs.filter((p) => p[1].bytes < p[0].bytes).length;
    const ts = (side: 0 | 1) =>
      `${quantile(t(side), 0.5)}/${quantile(t(side), 0.95)}/${mean(t(side)).toFixed(2)}`;
    const cs = (side: 0 | 1) => `${quantile(c(side), 0.5).toFixed(2)}/${quantile(c(side), 0.95).toFixed(2)}`;
    console.log(
      `| ${k} | ${pairs.length} | ${ts(0)} → ${ts(1)} | ${cs(0)} → ${cs(1)} | ${((bytes(1) / bytes(0) - 1) * 100).toFixed(2)} % | ${same} / ${larger} / ${smaller} |`,
    );
  }
  for (const pairs of groups.values())
    for (const [b, a] of pairs)
      if (a.sha !== b.sha)
        console.log(
          `${b.file} ${b.format}/${b.level}: q${b.quality} ${b.bytes} B (${b.trials} trials, ${b.score?.toFixed(2)}) → q${a.quality} ${a.bytes} B (${a.trials}, ${a.score?.toFixed(2)})`,
        );
}

async function run(label: string): Promise<void> {
  const levels = (option('--levels') ?? 'high,medium').split(',') as LossyLevel[];
  const formats = (option('--formats') ?? 'jpeg,webp,avif').split(',') as LossyFormat[];
  const named = args.filter((a, i) => i > 0 && !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  const { photos, lossy, pngs } = benchSample(C, false);
  // The photos, the lossy inputs (WebP wallpapers, astronaut, the Debian logo, a screenshot) and the other
  // two photo PNGs; --all-pngs adds the icons, illustrations and screenshots among the PNG inputs.
  const photoPngs = pngs.filter((p) => p.kind.startsWith('photo') || args.includes('--all-pngs'));
  const files =
    named.length > 0 ? named : [...new Set([...photos, ...lossy, ...photoPngs.map((p) => p.file)])];
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const out = join(
    root,
    'bench/results',
    `start-${label}-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`,
  );
  const tmp = join(tmpdir(), `presso-start-bench-${process.pid}.out`);
  // Warm: module load and the metric's first call are no output's cost.
  const warm = sharp({ create: { width: 96, height: 96, channels: 3, background: '#808040' } }).png();
  await tunedLossy(sharp(await warm.toBuffer()), 'jpeg', { level: 'high', hasAlpha: false }, { trials: 0 });
  for (const file of files)
    for (const level of levels)
      for (const format of formats) {
        const pipeline = sharp(file, { limitInputPixels: false }).autoOrient().toColourspace('srgb');
        const { hasAlpha = false } = await pipeline.metadata();
        const report: TuningReport = { trials: 0 };
        const cpu = process.cpuUsage();
        const wall = performance.now();
        const output = await tunedLossy(pipeline, format, { level, hasAlpha }, report);
        const { size } = await output.toFile(tmp);
        const sha = createHash('sha1').update(readFileSync(tmp)).digest('hex').slice(0, 12);
        const used = process.cpuUsage(cpu);
        const line: Line = {
          file: relative(C, file),
          format,
          level,
          bytes: size,
          sha,
          quality: report.quality,
          trials: report.trials,
          score: report.outputScore,
          cpuMs: Math.round((used.user + used.system) / 1000),
          wallMs: Math.round(performance.now() - wall),
          load: loadavg()[0]!,
        };
        appendFileSync(out, `${JSON.stringify(line)}\n`);
        console.log(
          `${line.file} ${format}/${level}: q${line.quality} ${line.bytes} B, ${line.trials} trials, ${line.cpuMs} CPU ms`,
        );
      }
  console.log(out);
}

if (args[0] === '--compare') compare(args[1]!, args[2]!);
else await run(args[0] ?? 'run');
