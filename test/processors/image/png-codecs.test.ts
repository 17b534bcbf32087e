import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { optimisePng } from '../../../src/processors/image/codecs/oxipng.ts';
import { ancillaryChunks } from '../../../src/processors/image/codecs/png-chunks.ts';
import {
  encodeNearLosslessPng,
  quantiseResiduals,
} from '../../../src/processors/image/codecs/png-near-lossless.ts';
import { decodeRgb } from '../../../src/processors/shared/metric/pixels.ts';
import type { RgbImage } from '../../../src/processors/shared/metric/ssimulacra2.ts';
import { corpus } from '../../support/corpus.ts';

function maxDifference(a: RgbImage, b: RgbImage): number {
  assert.deepEqual([a.width, a.height, a.channels], [b.width, b.height, b.channels]);
  let max = 0;
  for (let i = 0; i < a.data.length; i++) max = Math.max(max, Math.abs(a.data[i]! - b.data[i]!));
  return max;
}

describe('near-lossless PNG', () => {
  it('step 1 is lossless: a decoder sees exactly the input', async () => {
    const input = await decodeRgb(corpus.astronaut);
    const png = encodeNearLosslessPng(quantiseResiduals(input, 1));
    assert.equal(maxDifference(input, await decodeRgb(png)), 0);
  });

  it('every pixel stays within the step, the decoder sees the reconstruction, and bytes fall', async () => {
    const input = await decodeRgb(corpus.astronaut);
    const sizes: number[] = [];
    for (const step of [1, 4, 8, 16]) {
      const result = quantiseResiduals(input, step);
      const png = encodeNearLosslessPng(result);
      const decoded = await decodeRgb(png);
      assert.equal(maxDifference(decoded, result.reconstructed), 0, `step ${step}: decoder disagrees`);
      assert.ok(maxDifference(input, decoded) <= step, `step ${step}`);
      sizes.push(png.length);
    }
    assert.ok(
      sizes.every((size, i) => i === 0 || size < sizes[i - 1]! * 0.85),
      sizes.join(' > '),
    );
  });

  it('quantises alpha with half the step and writes grey images as grey', async () => {
    const rgba = await decodeRgb(corpus.alphaPng);
    assert.equal(rgba.channels, 4);
    const result = quantiseResiduals(rgba, 8);
    const decoded = await decodeRgb(encodeNearLosslessPng(result));
    let alphaError = 0;
    for (let i = 3; i < rgba.data.length; i += 4) {
      alphaError = Math.max(alphaError, Math.abs(decoded.data[i]! - rgba.data[i]!));
    }
    assert.ok(alphaError > 0 && alphaError <= 4, `alpha error ${alphaError}`);
    const exact = await decodeRgb(encodeNearLosslessPng(quantiseResiduals(rgba, 1)));
    assert.equal(maxDifference(rgba, exact), 0);

    const grey = await decodeRgb(sharp(corpus.astronaut).greyscale().toColourspace('srgb'));
    const greyPng = encodeNearLosslessPng(quantiseResiduals(grey, 4));
    const meta = await sharp(greyPng).metadata();
    assert.equal(meta.channels, 1);
  });

  it('drops an alpha channel that is opaque everywhere', async () => {
    const rgb = await decodeRgb(corpus.astronaut);
    const opaque = await decodeRgb(sharp(corpus.astronaut).ensureAlpha());
    assert.equal(opaque.channels, 4);
    const result = quantiseResiduals(opaque, 1);
    assert.equal(result.colourType, 2);
    assert.equal(maxDifference(rgb, await decodeRgb(encodeNearLosslessPng(result))), 0);
  });

  it('carries the metadata chunks of another PNG (ICC profile, EXIF)', async () => {
    const tagged = await sharp(corpus.canonPhoto)
      .resize(64)
      .keepIccProfile()
      .withExif({ IFD0: { Copyright: 'Presso test' } })
      .png()
      .toBuffer();
    const chunks = ancillaryChunks(tagged);
    const types = chunks.map((chunk) => Buffer.from(chunk.subarray(4, 8)).toString('latin1'));
    assert.ok(types.includes('iCCP'), types.join(','));
    const png = encodeNearLosslessPng(quantiseResiduals(await decodeRgb(tagged), 4), chunks);
    const meta = await sharp(png).metadata();
    assert.ok(meta.icc !== undefined && meta.icc.length > 0);
    assert.ok(meta.exif?.includes('Presso test'));
    assert.deepEqual(ancillaryChunks(Buffer.from('not a png')), []);
  });
});

describe('oxipng', () => {
  it('never changes a pixel and never grows the file', async () => {
    const png = await sharp(corpus.alphaPng).png({ compressionLevel: 6 }).toBuffer();
    const optimised = await optimisePng(png);
    assert.ok(optimised.length <= png.length, `${png.length} → ${optimised.length}`);
    assert.ok(optimised.length < png.length * 0.95, 'level-6 zlib leaves room for oxipng');
    assert.equal(maxDifference(await decodeRgb(png), await decodeRgb(optimised)), 0);
  });

  it('hands back input it cannot parse', async () => {
    const junk = Buffer.from('not a png at all');
    assert.equal(await optimisePng(junk), junk);
  });
});
