/**
 * The native SSIMULACRA 2 (native/ssimulacra2) against the TypeScript reference it reproduces: the same
 * number (`===`, not close) on every fixture pair of test/fixtures/ssimulacra2/ and on made inputs at the
 * edges (1×1, below 8×8, odd sizes, alpha, mixed channels, flat images), and scoring off the event loop.
 * scripts/setup.sh builds the addon, so a missing addon fails here instead of being skipped.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { floatCubeRoot } from '../../../src/processors/shared/metric/float-cube-root.ts';
import { decodeRgb } from '../../../src/processors/shared/metric/pixels.ts';
import { measureSsimulacra2 } from '../../../src/processors/shared/metric/score.ts';
import { type RgbImage, ssimulacra2 } from '../../../src/processors/shared/metric/ssimulacra2.ts';
import {
  ADDON_PATH,
  nativeCbrt,
  nativeSsimulacra2LoadError,
  ssimulacra2Native,
} from '../../../src/processors/shared/metric/ssimulacra2-native.ts';
import { scaledMs } from '../../support/time-scale.ts';

const dir = resolve(import.meta.dirname, '../../fixtures/ssimulacra2');
const support = resolve(import.meta.dirname, '../../support');
const { pairs } = JSON.parse(readFileSync(join(dir, 'pairs.json'), 'utf8')) as {
  pairs: { original: string; distorted: string }[];
};

/** Deterministic pseudo-random bytes (a 32-bit LCG), so a failure can be reproduced. */
function noise(width: number, height: number, channels: 3 | 4, seed: number): RgbImage {
  const data = new Uint8Array(width * height * channels);
  let s = seed >>> 0;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    data[i] = s >>> 24;
  }
  return { data, width, height, channels };
}

/** `image` with every byte moved by up to ±amplitude (deterministic), alpha included. */
function distort(image: RgbImage, amplitude: number, seed: number): RgbImage {
  const delta = noise(image.width, image.height, image.channels, seed).data;
  const data = image.data.map((v, i) =>
    Math.min(255, Math.max(0, v + ((delta[i]! % (2 * amplitude + 1)) - amplitude))),
  );
  return { ...image, data };
}

function flat(width: number, height: number, channels: 3 | 4, value: number): RgbImage {
  return { data: new Uint8Array(width * height * channels).fill(value), width, height, channels };
}

/** A smooth gradient with a sharp edge: structure the blur and the edge maps respond to. */
function gradient(width: number, height: number, channels: 3 | 4): RgbImage {
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const k = (y * width + x) * channels;
      data[k] = Math.round((255 * x) / Math.max(1, width - 1));
      data[k + 1] = Math.round((255 * y) / Math.max(1, height - 1));
      data[k + 2] = x > width / 2 ? 230 : 20;
      if (channels === 4) data[k + 3] = (x * 7 + y * 3) % 256;
    }
  return { data, width, height, channels };
}

async function assertSame(reference: RgbImage, distorted: RgbImage, label: string): Promise<number> {
  const expected = ssimulacra2(reference, distorted);
  const actual = await ssimulacra2Native(reference, distorted);
  assert.ok(Number.isFinite(expected), `${label}: reference score ${expected}`);
  assert.equal(actual, expected, `${label}: native ${actual} vs TypeScript ${expected}`);
  return actual;
}

test('the addon is built and loads (scripts/setup.sh builds it; missing is a bug, not a skip)', () => {
  const error = nativeSsimulacra2LoadError();
  assert.equal(error, undefined, `${ADDON_PATH}: ${error?.message}`);
});

test("the addon's cube root is the TypeScript's, bit for bit, and within one float32 unit of Math.cbrt", () => {
  // The metric's inputs (the opsin mix: 0.0038..1.01), a wider range, and the special values.
  const values = new Float32Array(1_000_000);
  let s = 12345;
  for (let i = 0; i < values.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const u = s / 2 ** 32;
    values[i] = i % 4 === 3 ? u * 10 ** ((i % 60) - 30) : 0.0037 + u * 1.01;
  }
  values.set([0, -0, -8, 27, 1, 0.0037930732552754493, Number.NaN, -Infinity]);
  const ours = nativeCbrt(values);
  const ulp = new Float32Array(1);
  const bits = new Int32Array(ulp.buffer);
  let differsFromTypeScript = 0;
  let notNearest = 0;
  let offByMore = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (!Object.is(ours[i], floatCubeRoot(x))) differsFromTypeScript++;
    const nearest = x > 0 ? Math.fround(Math.cbrt(x)) : 0;
    if (ours[i] === nearest) continue;
    notNearest++;
    ulp[0] = nearest;
    bits[0]! += 1;
    if (Math.abs(ours[i]! - nearest) > ulp[0]! - nearest) offByMore++;
  }
  assert.equal(differsFromTypeScript, 0, `${differsFromTypeScript} cube roots differ from the TypeScript's`);
  assert.equal(offByMore, 0, `${offByMore} cube roots are more than one float32 unit from Math.cbrt`);
  assert.ok(notNearest <= values.length / 10_000, `${notNearest} cube roots are not the nearest float32`);
});

test('native and TypeScript scores are identical on every fixture pair', async () => {
  assert.ok(pairs.length >= 40, `${pairs.length} pairs`);
  const scores = new Set<number>();
  for (const pair of pairs) {
    const original = await decodeRgb(join(dir, pair.original));
    const distorted = await decodeRgb(join(dir, pair.distorted));
    scores.add(await assertSame(original, distorted, pair.distorted));
  }
  // The pairs span the quality range: equal scores that were all 100 would prove nothing.
  assert.ok(scores.size >= pairs.length - 2, `${scores.size} distinct scores`);
  assert.ok(Math.min(...scores) < 70, `lowest ${Math.min(...scores)}`);
});

test('native and TypeScript scores are identical on noise at odd sizes, with and without alpha', async () => {
  const sizes: [number, number][] = [
    [8, 8],
    [9, 13],
    [33, 17],
    [64, 48],
    [127, 65],
    [16, 300],
    [301, 11],
  ];
  let seed = 1;
  for (const [width, height] of sizes)
    for (const channels of [3, 4] as const) {
      const reference = noise(width, height, channels, seed++);
      for (const amplitude of [1, 12, 80])
        await assertSame(
          reference,
          distort(reference, amplitude, seed++),
          `${width}×${height}×${channels} ±${amplitude}`,
        );
    }
});

test('native and TypeScript scores are identical on structured images and mixed channel counts', async () => {
  const rgb = gradient(97, 61, 3);
  const rgba = gradient(97, 61, 4);
  await assertSame(rgb, distort(rgb, 6, 7), 'gradient');
  await assertSame(rgba, distort(rgba, 6, 8), 'gradient with alpha');
  await assertSame(rgb, distort(rgba, 3, 9), 'RGB against RGBA');
  await assertSame(rgba, distort(rgb, 3, 10), 'RGBA against RGB');
});

test('edge inputs: 1×1, below 8×8, flat, fully transparent and identical images', async () => {
  assert.equal(await assertSame(noise(1, 1, 3, 3), noise(1, 1, 3, 4), '1×1'), 100);
  assert.equal(await assertSame(noise(7, 40, 4, 5), noise(7, 40, 4, 6), '7×40 (no scale)'), 100);
  assert.equal(await assertSame(flat(40, 40, 3, 128), flat(40, 40, 3, 128), 'flat identical'), 100);
  assert.ok((await assertSame(flat(40, 40, 3, 0), flat(40, 40, 3, 255), 'black against white')) < 50);
  await assertSame(flat(31, 29, 3, 17), flat(31, 29, 3, 19), 'flat, slightly different');
  await assertSame(flat(31, 29, 4, 0), noise(31, 29, 4, 11), 'fully transparent against noise');
  const photo = await decodeRgb(join(dir, 'coffee.png'));
  assert.equal(await assertSame(photo, photo, 'identical photo'), 100);
});

test('inputs the addon refuses are rejected, not scored', async () => {
  const small = noise(4, 4, 3, 1);
  await assert.rejects(ssimulacra2Native(small, noise(4, 5, 3, 2)), /sizes differ/);
  const short: RgbImage = { data: new Uint8Array(10), width: 4, height: 4, channels: 3 };
  await assert.rejects(ssimulacra2Native(short, small), TypeError);
});

/** Scores `reference` against `distorted` with `score`, counting event-loop turns (setImmediate) meanwhile. */
async function turnsDuring(score: () => Promise<number>): Promise<number> {
  let turns = 0;
  let done = false;
  const spin = () => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  await score();
  done = true;
  return turns;
}

test('native scoring leaves the event loop free; the TypeScript metric does not', async () => {
  const reference = noise(1200, 1000, 3, 21);
  const distorted = distort(reference, 10, 22);
  // The TypeScript metric runs to the end before any turn: the counter sees blocking as 0 turns. It
  // blocks at any size (one synchronous call), so 300×250 shows it: 0.1 CPU-s where 1.2 MP took 1.3.
  const [smallReference, smallDistorted] = [noise(300, 250, 3, 21), noise(300, 250, 3, 22)];
  const blockingTurns = await turnsDuring(async () => ssimulacra2(smallReference, smallDistorted));
  assert.equal(blockingTurns, 0);
  // The native metric runs on the thread pool: the loop keeps turning while 1.2 MP are scored (thousands
  // of turns in practice; 20 leaves room for a machine busy with other work).
  const nativeTurns = await turnsDuring(() => measureSsimulacra2(reference, distorted));
  assert.ok(nativeTurns >= 20, `${nativeTurns} event-loop turns during native scoring`);
});

test('without the addon, scores come from the TypeScript metric with one warning', () => {
  const args = ['--import', join(support, 'hide-native-metric.ts'), join(support, 'score-twice.ts')];
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: scaledMs(120_000) });
  assert.equal(child.status, 0, child.stderr);
  const [first, second] = JSON.parse(child.stdout) as [number, number];
  const warnings = child.stderr.match(/PRESSO_SSIMULACRA2_FALLBACK/g) ?? [];
  assert.equal(warnings.length, 1, child.stderr);
  assert.match(child.stderr, /absent\.node/);
  // The same numbers the addon gives in a normal run.
  const normal = JSON.parse(
    execFileSync(process.execPath, [join(support, 'score-twice.ts')], { encoding: 'utf8' }),
  );
  assert.deepEqual([first, second], normal);
  assert.ok(first < 100, `${first}`);
});
