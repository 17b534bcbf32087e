/**
 * A prepared reference (shared/metric/prepared-reference.ts) scores exactly as the one-shot metric does:
 * `===` against `measureSsimulacra2(...alignChannels(reference, distorted))`, by the addon and by the
 * TypeScript port, on real photos and their encodes (several trials against one preparation), images
 * with alpha (both backgrounds), mixed channels, odd and tiny sizes, and the fixture pairs. Its memory is
 * freed by release() even while a score is in flight, and a released reference refuses to score.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import sharp, { type Sharp } from 'sharp';
import { decodeRgb } from '../../../src/processors/shared/metric/pixels.ts';
import { prepareReferenceTs } from '../../../src/processors/shared/metric/prepared-reference.ts';
import {
  alignChannels,
  measureSsimulacra2,
  prepareReference,
} from '../../../src/processors/shared/metric/score.ts';
import { type RgbImage, ssimulacra2 } from '../../../src/processors/shared/metric/ssimulacra2.ts';
import { nativeSsimulacra2LoadError } from '../../../src/processors/shared/metric/ssimulacra2-native.ts';
import { corpus } from '../../support/corpus.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { scaledMs } from '../../support/time-scale.ts';

const fixtures = resolve(import.meta.dirname, '../../fixtures/ssimulacra2');
const support = resolve(import.meta.dirname, '../../support');

/** The one-shot score of each distorted image, then the prepared one's: the same numbers, in order. */
async function assertSameNative(reference: RgbImage, distorted: RgbImage[], label: string): Promise<void> {
  const expected: number[] = [];
  for (const d of distorted) {
    const aligned = await measureSsimulacra2(...alignChannels(reference, d));
    // The proxy search scores mixed channels without aligning them: the same number.
    assert.equal(await measureSsimulacra2(reference, d), aligned, `${label}: aligned or not`);
    expected.push(aligned);
  }
  const prepared = await prepareReference(reference);
  try {
    const actual: number[] = [];
    for (const d of distorted) actual.push(await prepared.score(d));
    assert.deepEqual(actual, expected, `${label}: prepared vs one-shot (addon)`);
  } finally {
    prepared.release();
  }
}

function assertSameTs(reference: RgbImage, distorted: RgbImage[], label: string): Promise<void> {
  const prepared = prepareReferenceTs(reference);
  return Promise.all(distorted.map((d) => prepared.score(d))).then((actual) => {
    const expected = distorted.map((d) => ssimulacra2(...alignChannels(reference, d)));
    assert.deepEqual(actual, expected, `${label}: prepared vs one-shot (TypeScript)`);
  });
}

/** `image` encoded by `encode` and decoded again (sharp keeps alpha where the format has it). */
async function roundTrip(image: RgbImage, encode: (s: Sharp) => Sharp): Promise<RgbImage> {
  const { width, height, channels } = image;
  const input = sharp(Buffer.from(image.data.buffer, image.data.byteOffset, width * height * channels), {
    raw: { width, height, channels },
  });
  return decodeRgb(await encode(input).toBuffer());
}

/** A window of `image` at (left, top), `width` × `height`: odd sizes from real pixels. */
function crop(image: RgbImage, left: number, top: number, width: number, height: number): RgbImage {
  const { channels } = image;
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const from = ((top + y) * image.width + left) * channels;
    data.set(image.data.subarray(from, from + width * channels), y * width * channels);
  }
  return { data, width, height, channels };
}

/** `image` with an alpha channel that varies (a diagonal ramp): an opaque photo made semi-transparent. */
function withAlpha(image: RgbImage): RgbImage {
  const n = image.width * image.height;
  const data = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) data[i * 4 + c] = image.data[i * image.channels + c]!;
    data[i * 4 + 3] = 255 - (((i % image.width) + Math.floor(i / image.width)) % 200);
  }
  return { data, width: image.width, height: image.height, channels: 4 };
}

test('the addon is built (a prepared reference is its handle)', () => {
  assert.equal(nativeSsimulacra2LoadError(), undefined);
});

test('a photo and its encodes: the same scores prepared once as one by one (opaque, odd sizes)', async () => {
  // The 640×480 crop of the camera photo: the addon has no path that depends on the size (the odd and
  // tiny sizes below cover stride padding and the scales), and a quarter of the 1280×960's pixels to score.
  const photo = await decodeRgb(smallCorpus.canonPhoto);
  const trials = await Promise.all(
    [40, 70, 90].map((quality) => roundTrip(photo, (s) => s.jpeg({ quality, mozjpeg: true }))),
  );
  trials.push(await roundTrip(photo, (s) => s.webp({ quality: 75 })));
  await assertSameNative(photo, trials, 'Canon 640×480');
  // Odd widths and heights (stride padding, odd downsampling at every scale), from real pixels.
  for (const [w, h] of [
    [333, 251],
    [97, 61],
    [17, 9],
    [9, 9],
    [8, 8],
  ] as const) {
    const window = crop(photo, 101, 37, w, h);
    const distorted = [40, 85].map((quality) => crop(trials[quality === 40 ? 0 : 1]!, 101, 37, w, h));
    await assertSameNative(window, distorted, `${w}×${h}`);
    await assertSameTs(window, distorted, `${w}×${h}`);
  }
  // Too small for one scale: the metric's 100 either way.
  await assertSameNative(crop(photo, 0, 0, 7, 30), [crop(trials[0]!, 0, 0, 7, 30)], '7×30');
});

test('alpha: both backgrounds, and references and outputs with and without alpha', async () => {
  const logo = await decodeRgb(corpus.alphaPng);
  assert.equal(logo.channels, 4);
  const webp = await roundTrip(logo, (s) => s.webp({ quality: 70 }));
  const avif = await roundTrip(logo, (s) => s.avif({ quality: 50, effort: 0 }));
  const flattened = await roundTrip(logo, (s) => s.flatten({ background: '#ffffff' }).jpeg({ quality: 80 }));
  assert.equal(flattened.channels, 3);
  await assertSameNative(logo, [webp, avif, flattened], 'Debian logo 800×600 RGBA');
  const illustration = await decodeRgb(corpus.alphaIllustration);
  const odd = crop(illustration, 13, 7, 301, 211);
  const oddWebp = await roundTrip(odd, (s) => s.webp({ quality: 60 }));
  await assertSameNative(odd, [oddWebp], 'skimage logo 301×211 RGBA');
  await assertSameTs(odd, [oddWebp], 'skimage logo 301×211 RGBA');
  // An opaque reference against outputs with alpha: one preparation serves both backgrounds.
  const photo = crop(await decodeRgb(corpus.canonPhoto), 200, 100, 257, 193);
  const translucent = withAlpha(await roundTrip(photo, (s) => s.jpeg({ quality: 60 })));
  await assertSameNative(
    photo,
    [translucent, await roundTrip(photo, (s) => s.jpeg({ quality: 60 }))],
    'mixed',
  );
  await assertSameTs(photo, [translucent], 'opaque reference, output with alpha');
  await assertSameTs(
    withAlpha(photo),
    [await roundTrip(photo, (s) => s.webp({ quality: 50 }))],
    'the reverse',
  );
});

test('the fixture pairs: prepared scores are the one-shot scores', async () => {
  const { pairs } = JSON.parse(readFileSync(join(fixtures, 'pairs.json'), 'utf8')) as {
    pairs: { original: string; distorted: string }[];
  };
  const byOriginal = new Map<string, string[]>();
  for (const { original, distorted } of pairs)
    byOriginal.set(original, [...(byOriginal.get(original) ?? []), distorted]);
  for (const [original, distorted] of byOriginal) {
    const reference = await decodeRgb(join(fixtures, original));
    const outputs = await Promise.all(distorted.map((d) => decodeRgb(join(fixtures, d))));
    await assertSameNative(reference, outputs, original);
  }
});

test('release frees the planes, waits for a score in flight, and a released reference refuses', async () => {
  const photo = await decodeRgb(corpus.canonPhoto);
  const output = await roundTrip(photo, (s) => s.jpeg({ quality: 70 }));
  const prepared = await prepareReference(photo);
  // 9 float planes per scale (X, Y, B; μ1 and σ11 of each): 36 bytes × 4/3 per pixel, in 2 MB units.
  const perPixel = prepared.bytes() / (photo.width * photo.height);
  assert.ok(perPixel >= 47 && perPixel <= 50.5, `${perPixel} bytes per pixel`);
  const expected = await measureSsimulacra2(photo, output);
  const inFlight = prepared.score(output);
  prepared.release();
  assert.equal(prepared.bytes(), 0);
  assert.equal(await inFlight, expected);
  await assert.rejects(prepared.score(output), /released/);
  prepared.release(); // idempotent
  const ts = prepareReferenceTs(crop(photo, 0, 0, 64, 48));
  ts.release();
  await assert.rejects(ts.score(crop(output, 0, 0, 64, 48)), /released/);
  const small = await prepareReference(crop(photo, 0, 0, 64, 48));
  await assert.rejects(small.score(crop(output, 0, 0, 64, 47)), /sizes differ/);
  small.release();
});

test('without the addon, prepared scores come from the TypeScript port: the same numbers', () => {
  const script = join(support, 'score-prepared.ts');
  const hidden = ['--import', join(support, 'hide-native-metric.ts'), script];
  const child = spawnSync(process.execPath, hidden, { encoding: 'utf8', timeout: scaledMs(120_000) });
  assert.equal(child.status, 0, child.stderr);
  assert.equal((child.stderr.match(/PRESSO_SSIMULACRA2_FALLBACK/g) ?? []).length, 1, child.stderr);
  const normal = execFileSync(process.execPath, [script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(child.stdout), JSON.parse(normal));
});
