/**
 * PNG gAMA and cHRM chunks (libvips ignores them) are honoured with the reference's precedence rules (sRGB
 * and iCCP chunks win, gAMA alone keeps sRGB primaries, cHRM alone keeps the sRGB curve): by the metric's
 * decode, and by the image processor, whose outputs keep the colours the tags describe. Inputs are real
 * corpus pixels with the chunks written by bench/metric/png-chunks.ts.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import sharp from 'sharp';
import { withColourChunks } from '../../../bench/metric/png-chunks.ts';
import { decodeRgb } from '../../../src/processors/shared/metric/pixels.ts';
import { pngColourTags } from '../../../src/processors/shared/metric/png-colour.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { corpus } from '../../support/corpus.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

const dir = await mkdtemp(join(tmpdir(), 'presso-png-colour-'));
after(async () => {
  await removeWorkDirs();
  await rm(dir, { recursive: true, force: true });
});

const plain = await sharp(corpus.chelsea)
  .extract({ left: 100, top: 50, width: 64, height: 64 })
  .png()
  .toBuffer();
const adobe = {
  white: [0.3127, 0.329] as [number, number],
  red: [0.64, 0.33] as [number, number],
  green: [0.21, 0.71] as [number, number],
  blue: [0.15, 0.06] as [number, number],
};

/** Inserts a chunk of `type` with `data` after IHDR (as a second tag next to gAMA). */
function withChunk(png: Buffer, type: string, data: Buffer): Buffer {
  const tagged = withColourChunks(png, 1 / 1.8);
  const ihdrEnd = 8 + 8 + png.readUInt32BE(8) + 4;
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length);
  head.write(type, 4, 'latin1');
  const chunk = Buffer.concat([head, data, Buffer.alloc(4)]);
  return Buffer.concat([tagged.subarray(0, ihdrEnd), chunk, tagged.subarray(ihdrEnd)]);
}

test('gAMA alone: stored values are decoded with a pure power curve and re-encoded as sRGB', async () => {
  const stored = await decodeRgb(plain);
  const decoded = await decodeRgb(withColourChunks(plain, 1 / 1.8));
  for (const i of [0, 301, 4000, 9999]) {
    const linear = (stored.data[i]! / 255) ** 1.8;
    const srgb = linear <= 0.0031308 ? linear * 12.92 : 1.055 * linear ** (1 / 2.4) - 0.055;
    assert.equal(decoded.data[i], Math.round(srgb * 255), `byte ${i}`);
  }
});

test('gAMA + cHRM (Adobe RGB primaries, gamma 2.2) converts to sRGB like the published matrix', async () => {
  const flat = await sharp({
    create: { width: 16, height: 16, channels: 3, background: { r: 60, g: 160, b: 60 } },
  })
    .png()
    .toBuffer();
  const decoded = await decodeRgb(withColourChunks(flat, 1 / 2.2, adobe));
  // The published Adobe RGB (1998) → sRGB matrix (both D65), on the pure-2.2 linear values.
  const [r, g, b] = [60, 160, 60].map((v) => (v / 255) ** 2.2) as [number, number, number];
  const linear = [1.39836 * r - 0.39836 * g, g, -0.04293 * g + 1.04293 * b];
  const expected = linear.map((v) => {
    const c = Math.min(1, Math.max(0, v));
    return Math.round(255 * (c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055));
  });
  assert.deepEqual(expected, [0, 161, 46]);
  assert.deepEqual([...decoded.data.subarray(0, 3)], expected);
});

test('an sRGB or iCCP chunk overrides gAMA and cHRM, as in the reference decoder', async () => {
  assert.deepEqual(pngColourTags(withColourChunks(plain, 1 / 1.8, adobe)), {
    overridden: false,
    gamma: 0.55556,
    chromaticities: [
      [0.3127, 0.329],
      [0.64, 0.33],
      [0.21, 0.71],
      [0.15, 0.06],
    ],
  });
  assert.equal(pngColourTags(withChunk(plain, 'sRGB', Buffer.from([0]))), undefined);
  assert.equal(pngColourTags(withChunk(plain, 'iCCP', Buffer.from('x\0\0'))), undefined);
  assert.equal(pngColourTags(plain), undefined);
  assert.equal(pngColourTags(Buffer.from('not a png at all')), undefined);
});

test('the image processor keeps the colours of a gAMA/cHRM PNG: every output meets the level on the colour-managed input', async () => {
  // Before, the stored values were encoded as sRGB: these outputs scored 59–63 against the tagged input.
  const png = await sharp(corpus.astronaut)
    .extract({ left: 128, top: 40, width: 256, height: 256 })
    .png()
    .toBuffer();
  const path = join(dir, 'adobe-tagged.png');
  await writeFile(path, withColourChunks(png, 1 / 2.2, adobe));
  const input = await decodeRgb(path);
  for (const format of ['png', 'jpeg', 'webp']) {
    const result = await runImage(path, { compression: 'high', format });
    const score = await scorePixels(input, await decodeRgb(await readFile(result.path)));
    assert.ok(score >= 78, `${format}: ${score.toFixed(2)}`);
  }
  // metadata: keep carries the tags' colour space along as the equivalent ICC profile.
  const kept = await runImage(path, { compression: 'lossless', format: 'png', metadata: 'keep' });
  const profile = (await sharp(kept.path).metadata()).icc;
  assert.ok(
    profile?.toString('latin1').includes('PNG gAMA/cHRM: gamma 2.2000, cHRM primaries'),
    'profile kept',
  );
});

/** A 16-bit copy of `png` with detail below the 8-bit step (v·257 plus a per-pixel offset of ±128). */
async function sixteenBit(png: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const deep = Uint16Array.from(data, (v, i) =>
    Math.max(0, Math.min(65535, v * 257 + ((i * 37) % 257) - 128)),
  );
  return sharp(deep, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .toColourspace('rgb16')
    .png()
    .toBuffer();
}

test('16-bit samples are rounded to 8 bits (v / 257), not truncated as libvips does', async () => {
  const deep = await sixteenBit(plain);
  const { data } = await sharp(deep)
    .toColourspace('rgb16')
    .raw({ depth: 'ushort' })
    .toBuffer({ resolveWithObject: true });
  const samples = new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2);
  const decoded = await decodeRgb(deep);
  let truncatedDiffers = 0;
  for (let i = 0; i < samples.length; i++) {
    assert.equal(decoded.data[i], Math.round(samples[i]! / 257), `sample ${i}`);
    if (samples[i]! >> 8 !== decoded.data[i]) truncatedDiffers++;
  }
  assert.ok(
    truncatedDiffers > samples.length / 10,
    `the rounding matters on these samples (${truncatedDiffers})`,
  );
});

test('a 16-bit gAMA/cHRM PNG keeps its colours: lossless is exact, lossy outputs meet the level', async () => {
  // libvips mis-decodes a colourful 16-bit PNG carrying an ICC profile, so the profile path gave a lossless
  // output scoring 88 (julia-set.png); the processor now converts such files itself (png-colour-source.ts).
  const png = await sharp(corpus.astronaut)
    .extract({ left: 128, top: 40, width: 256, height: 256 })
    .png()
    .toBuffer();
  const path = join(dir, 'adobe-tagged-16.png');
  await writeFile(path, withColourChunks(await sixteenBit(png), 1 / 2.2, adobe));
  assert.equal((await sharp(path).metadata()).depth, 'ushort');
  const input = await decodeRgb(path);
  const lossless = await runImage(path, { compression: 'lossless', format: 'png' });
  assert.equal((await sharp(lossless.path).metadata()).depth, 'ushort', '16 bits kept');
  const exact = await scorePixels(input, await decodeRgb(await readFile(lossless.path)));
  assert.ok(exact >= 99.5, `lossless: ${exact.toFixed(2)}`);
  for (const format of ['png', 'jpeg', 'webp']) {
    const result = await runImage(path, { compression: 'high', format });
    const score = await scorePixels(input, await decodeRgb(await readFile(result.path)));
    assert.ok(score >= 78, `${format}: ${score.toFixed(2)}`);
  }
});
