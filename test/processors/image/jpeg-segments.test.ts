import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { stripJpegMetadata } from '../../../src/processors/image/jpeg-segments.ts';
import { corpus } from '../../support/corpus.ts';

async function pixels(jpeg: Buffer): Promise<Buffer> {
  return sharp(jpeg, { failOn: 'error' }).raw().toBuffer();
}

describe('stripJpegMetadata', () => {
  it('drops EXIF from a progressive JPEG and keeps its pixels exactly', async () => {
    const jpeg = await sharp(corpus.chelsea)
      .withExif({ IFD0: { Artist: 'someone', Copyright: 'x' } })
      .jpeg({ mozjpeg: true, progressive: true })
      .toBuffer();
    const before = await sharp(jpeg).metadata();
    assert.ok(before.exif !== undefined);
    const stripped = stripJpegMetadata(jpeg);
    assert.ok(stripped !== undefined);
    const after = await sharp(stripped).metadata();
    assert.equal(after.exif, undefined);
    assert.equal(after.isProgressive, true);
    assert.ok(stripped.length < jpeg.length);
    assert.ok((await pixels(stripped)).equals(await pixels(jpeg)));
  });

  it('drops an ICC profile segment', async () => {
    const jpeg = await sharp(corpus.chelsea).withIccProfile('p3').jpeg().toBuffer();
    assert.ok((await sharp(jpeg).metadata()).icc !== undefined);
    const stripped = stripJpegMetadata(jpeg);
    assert.ok(stripped !== undefined);
    assert.equal((await sharp(stripped).metadata()).icc, undefined);
  });

  it('drops data appended after the end-of-image marker', async () => {
    const jpeg = await sharp(corpus.chelsea).jpeg({ quality: 80, optimiseScans: false }).toBuffer();
    const withTrailer = Buffer.concat([jpeg, Buffer.from('appended preview image data')]);
    const stripped = stripJpegMetadata(withTrailer);
    assert.ok(stripped !== undefined);
    assert.equal(stripped.at(-2), 0xff);
    assert.equal(stripped.at(-1), 0xd9);
    assert.ok((await pixels(stripped)).equals(await pixels(jpeg)));
  });

  it('gives up (undefined) on truncated or non-JPEG data', async () => {
    const jpeg = await sharp(corpus.chelsea).jpeg().toBuffer();
    assert.equal(stripJpegMetadata(jpeg.subarray(0, jpeg.length / 2)), undefined);
    assert.equal(stripJpegMetadata(Buffer.from('not a jpeg at all')), undefined);
  });
});
