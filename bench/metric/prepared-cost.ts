/**
 * CPU of one search trial's score, one-shot (`measureSsimulacra2`) against a score against a prepared
 * reference (`prepareReference(...).score`, shared/metric/prepared-reference.ts), on what the searches
 * score: the proxy (the 640×480 photo whole; the 576×576 mosaic of the 1280×960 photo and of a 2400×1800
 * copy of the phone photo, each tile encoded on its own) and the whole-output checks of the two larger
 * photos, against mozjpeg q70. Process CPU (user + system, every thread: the addon works on libuv's pool),
 * the two called alternately RUNS times after a warm-up, medians; the preparation's own CPU too. The
 * scores must be identical. Run: node bench/metric/prepared-cost.ts (docs/benchmarks.md keeps the numbers).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  decodeRgb,
  mosaicTiles,
  SEARCH_MOSAIC,
  sharpFromRgb,
  stitch,
} from '../../src/processors/shared/metric/pixels.ts';
import { measureSsimulacra2, prepareReference } from '../../src/processors/shared/metric/score.ts';
import type { RgbImage } from '../../src/processors/shared/metric/ssimulacra2.ts';
import { corpus } from '../../test/support/corpus.ts';

const RUNS = Number(process.argv[2] ?? 9);

async function cpuOf<T>(work: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const q70 = async (image: RgbImage) =>
  decodeRgb(await sharpFromRgb(image).jpeg({ quality: 70, mozjpeg: true }).toBuffer());

async function pair(image: RgbImage, proxy: boolean): Promise<[RgbImage, RgbImage]> {
  const grid = proxy ? mosaicTiles(image, SEARCH_MOSAIC) : undefined;
  if (grid === undefined) return [image, await q70(image)];
  return [stitch(grid), stitch({ ...grid, tiles: await Promise.all(grid.tiles.map(q70)) })];
}

const dir = join(tmpdir(), 'presso-refcache-inputs');
mkdirSync(dir, { recursive: true });
const canon640 = join(dir, 'canon-640.jpg');
const phone = join(dir, 'phone-2400.jpg');
if (!existsSync(canon640)) await sharp(corpus.canonPhoto).resize(640).jpeg({ quality: 95 }).toFile(canon640);
if (!existsSync(phone))
  await sharp(corpus.gpsPhoto).autoOrient().resize(2400).jpeg({ quality: 92 }).toFile(phone);
const [small, canon, photo] = await Promise.all(
  [canon640, corpus.canonPhoto, phone].map((p) => decodeRgb(p)),
);
const cases: [string, [RgbImage, RgbImage]][] = [
  ['Canon 640×480 (proxy = whole)', await pair(small!, true)],
  ['Canon 1280×960 proxy 576×576', await pair(canon!, true)],
  ['phone 2400×1800 proxy 576×576', await pair(photo!, true)],
  ['Canon 1280×960 whole check', await pair(canon!, false)],
  ['phone 2400×1800 whole check', await pair(photo!, false)],
];
console.log(`load average at start ${loadavg()[0]!.toFixed(1)}; ${RUNS} alternating runs, medians`);
for (const [name, [reference, distorted]] of cases) {
  const oneShot: number[] = [];
  const against: number[] = [];
  const prepares: number[] = [];
  await measureSsimulacra2(reference, distorted);
  for (let i = 0; i < RUNS; i++) {
    const a = await cpuOf(() => measureSsimulacra2(reference, distorted));
    const p = await cpuOf(() => prepareReference(reference));
    const b = await cpuOf(() => p.value.score(distorted));
    p.value.release();
    assert.equal(b.value, a.value, `${name}: scores differ`);
    oneShot.push(a.cpuMs);
    prepares.push(p.cpuMs);
    against.push(b.cpuMs);
  }
  const ms = (v: number) => v.toFixed(1);
  console.log(
    `${name}: one-shot ${ms(median(oneShot))} ms, prepared ${ms(median(against))} ms ` +
      `(${((100 * median(against)) / median(oneShot)).toFixed(0)} %), preparing ${ms(median(prepares))} ms`,
  );
}
console.log(`load average at end ${loadavg()[0]!.toFixed(1)}`);
