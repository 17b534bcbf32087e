/**
 * Presso's WebP at `high` (the whole processor: search and output check) against `cwebp -q`, bisected to
 * its smallest output scoring at least Presso's (as bench/images/run.ts `matchPeer`), with Presso's CPU
 * (user + sys, any tool it runs in the sandbox included: bench/shared/cpu-meter.ts) per image; prints the
 * median bytes ratio. `node bench/webp/peer.ts PHOTO...`
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { detectFile } from '../../src/media/detect.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { scoreOutput } from '../../src/processors/shared/metric/score.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';

const work = mkdtempSync(join(tmpdir(), 'webp-peer-'));
const processor = createImageProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });
const meter = CpuMeter.open('webp-peer');
let n = 0;
const ratios: number[] = [];
for (const file of process.argv.slice(2)) {
  const ref = join(work, `ref${n++}.png`);
  await sharp(file).autoOrient().toColourspace('srgb').png({ compressionLevel: 1 }).toFile(ref);
  const detected = (await detectFile(file))!;
  const dir = mkdtempSync(join(work, 'job-'));
  const { value: result, seconds } = await meter.measure(() =>
    processor.process({
      input: { ...detected, path: file, name: basename(file), size: statSync(file).size },
      params: { compression: 'high', format: 'webp' },
      workDir: dir,
      signal: new AbortController().signal,
      wantMetadata: false,
    }),
  );
  const bytes = statSync(result.path).size;
  const score = await scoreOutput(ref, result.path);
  let best: { q: number; bytes: number; s: number } | undefined;
  let a = 30,
    b = 100;
  while (a <= b) {
    const q = Math.floor((a + b) / 2);
    const o = join(work, `c${n++}.webp`);
    execFileSync('cwebp', ['-quiet', '-q', String(q), ref, '-o', o]);
    const s = await scoreOutput(ref, o);
    const size = statSync(o).size;
    if (s >= score) {
      if (!best || size < best.bytes) best = { q, bytes: size, s };
      b = q - 1;
    } else a = q + 1;
  }
  const r = best ? bytes / best.bytes : Number.NaN;
  ratios.push(r);
  console.log(
    `${basename(file)}: presso ${bytes} (${score.toFixed(2)}) cpu ${seconds.toFixed(2)} s | cwebp q${best?.q} ${best?.bytes} (${best?.s.toFixed(2)}) | ratio ${r.toFixed(3)}`,
  );
}
await meter.close();
const s = ratios.filter(Number.isFinite).sort((x, y) => x - y);
console.log(`median ratio ${s[Math.floor(s.length / 2)]?.toFixed(3)} over ${s.length}`);
