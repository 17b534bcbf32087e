/**
 * CPU cost of one SSIMULACRA 2 call, TypeScript (ssimulacra2.ts, on the main thread) against the native
 * addon (ssimulacra2-native.ts, on libuv's thread pool), in CPU milliseconds per megapixel of the scored
 * pair: process CPU time (user + system, every thread), so the native figure counts its worker thread.
 * Each is warmed once, then the median of five calls is reported with its wall time; the scores must be
 * identical. Run: node bench/metric/native-cost.ts (docs/benchmarks.md keeps the numbers).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import sharp, { type Sharp } from 'sharp';
import { decodeRgb } from '../../src/processors/shared/metric/pixels.ts';
import { type RgbImage, ssimulacra2 } from '../../src/processors/shared/metric/ssimulacra2.ts';
import { ssimulacra2Native } from '../../src/processors/shared/metric/ssimulacra2-native.ts';
import { corpus } from '../../test/support/corpus.ts';

const RUNS = 5;

async function pairOf(path: string, encode: (image: Sharp) => Sharp): Promise<[RgbImage, RgbImage]> {
  const reference = await decodeRgb(path);
  return [reference, await decodeRgb(await encode(sharp(path)).toBuffer())];
}

async function cost(score: () => Promise<number>): Promise<{ score: number; cpuMs: number; wallMs: number }> {
  await score();
  const runs: { score: number; cpuMs: number; wallMs: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const value = await score();
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    runs.push({ score: value, cpuMs: (used.user + used.system) / 1000, wallMs });
  }
  runs.sort((a, b) => a.cpuMs - b.cpuMs);
  return runs[Math.floor(RUNS / 2)]!;
}

const pairs: [string, [RgbImage, RgbImage]][] = [
  [
    'Canon 1280×960, mozjpeg q70',
    await pairOf(corpus.canonPhoto, (s) => s.jpeg({ quality: 70, mozjpeg: true })),
  ],
  ['Debian logo 800×600 RGBA, WebP q70', await pairOf(corpus.alphaPng, (s) => s.webp({ quality: 70 }))],
];
for (const [name, [reference, distorted]] of pairs) {
  const megapixels = (reference.width * reference.height) / 1e6;
  const ts = await cost(async () => ssimulacra2(reference, distorted));
  const native = await cost(() => ssimulacra2Native(reference, distorted));
  assert.equal(native.score, ts.score, `${name}: scores differ`);
  const row = (label: string, r: typeof ts) =>
    `  ${label}: ${(r.cpuMs / megapixels).toFixed(0)} CPU ms/MP, ${r.wallMs.toFixed(0)} ms wall`;
  console.log(`${name} (score ${ts.score.toFixed(4)}, identical)`);
  console.log(row('TypeScript', ts));
  console.log(row('native    ', native));
  console.log(`  native uses ${((100 * native.cpuMs) / ts.cpuMs).toFixed(0)} % of the TypeScript CPU`);
}
