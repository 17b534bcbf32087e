import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { ValidationError } from '../../../src/errors/catalog.ts';
import { corpus, corpusDir } from '../../support/corpus.ts';
import { decode, psnr, ssim } from '../../support/images.ts';
import { useScratch } from '../../support/scratch.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

const skimage = join(corpusDir, 'usr/lib/python3/dist-packages/skimage/data');
const scratch = useScratch('presso-in-');
after(removeWorkDirs);

describe('image processor: input formats', () => {
  it('decodes an HEVC HEIC (made by heif-enc with x265 from a real photo)', async () => {
    // 320×240: x265, the AVIF search and the scores cost a quarter of the 640×480 of before.
    const heic = join(scratch(), 'photo.heic');
    const jpeg320 = join(scratch(), 'photo-320.jpeg');
    await sharp(corpus.canonPhoto).resize(320).jpeg({ quality: 90 }).toFile(jpeg320);
    execFileSync('heif-enc', ['-q', '60', jpeg320, '-o', heic]);
    const header = await sharp(heic).metadata();
    assert.equal(header.compression, 'hevc', 'the test file is HEVC-coded');
    const result = await runImage(heic, {}, { wantMetadata: true });
    assert.equal(result.format, 'avif');
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height], [320, 240]);
    assert.ok((await ssim(result.path, jpeg320)) > 0.9);
    const jpeg = await runImage(heic, { format: 'jpeg', resize: { width: 160 } });
    const j = await decode(jpeg.path);
    assert.deepEqual([j.width, j.format], [160, 'jpeg']);
    assert.ok((await psnr(jpeg.path, jpeg320)) > 30);
    assert.equal((result.metadata as { width: number }).width, 320);
  });

  it('reads AVIF and still WebP', async () => {
    for (const format of ['avif', 'webp'] as const) {
      const input = join(scratch(), `still.${format}`);
      // Effort 0: the input only has to be an AVIF (WebP) still; libaom's default effort cost 0.9 CPU-s here.
      await sharp(corpus.chelsea)[format]({ quality: 80, effort: 0 }).toFile(input);
      // A lossless PNG out: the read is tested, and the palette search of `high` cost 0.8 CPU-s a format.
      const result = await runImage(input, {
        format: 'png',
        compression: 'lossless',
        resize: { width: 200 },
      });
      const out = await decode(result.path);
      assert.deepEqual([out.format, out.width, out.height], ['png', 200, 133], format);
      assert.ok((await ssim(result.path, corpus.chelsea)) > 0.9, format);
    }
  });

  it('uses the first page of a multi-page TIFF unless page asks for another', async () => {
    const tiff = join(skimage, 'multipage.tif');
    const pages = (await sharp(tiff).metadata()).pages ?? 1;
    assert.ok(pages > 1);
    const first = await runImage(tiff, { format: 'png', compression: 'lossless' });
    assert.equal(await psnr(first.path, sharp(tiff, { page: 0 })), Number.POSITIVE_INFINITY);
    const second = await runImage(tiff, { format: 'png', compression: 'lossless', page: 1 });
    assert.equal(await psnr(second.path, sharp(tiff, { page: 1 })), Number.POSITIVE_INFINITY);
    await assert.rejects(runImage(tiff, { page: pages }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.errors?.[0]?.field, 'image.page');
      return true;
    });
  });

  it('keeps an animated WebP animated through resize and conversion to GIF', async () => {
    const webp = join(scratch(), 'anim.webp');
    await sharp(corpus.animatedGif, { animated: true }).webp({ lossless: true }).toFile(webp);
    const resized = await runImage(webp, { resize: { width: 28 } });
    const out = await decode(resized.path);
    assert.deepEqual([out.format, out.frames, out.width, out.height], ['webp', 24, 28, 50]);
    const gif = await runImage(webp, { format: 'gif' });
    const g = await decode(gif.path);
    assert.deepEqual([g.format, g.frames, g.width], ['gif', 24, 14]);
    // Frame 10 of the output matches frame 10 of the input.
    assert.ok(
      (await psnr(
        await sharp(gif.path, { page: 10 }).png().toBuffer(),
        sharp(corpus.animatedGif, { page: 10 }),
      )) > 25,
    );
  });

  it('16-bit PNG: lossless PNG keeps 16 bits, lossy output is 8-bit', async () => {
    const deep = join(scratch(), 'deep.png');
    await sharp(corpus.chelsea).toColourspace('rgb16').png().toFile(deep);
    assert.equal((await sharp(deep).metadata()).depth, 'ushort');
    const lossless = await runImage(deep, { compression: 'lossless' });
    assert.equal((await sharp(lossless.path).metadata()).depth, 'ushort');
    assert.equal(await psnr(lossless.path, deep), Number.POSITIVE_INFINITY);
    const webp = await runImage(deep, { format: 'webp' });
    assert.equal((await sharp(webp.path).metadata()).depth, 'uchar');
    assert.ok((await psnr(webp.path, corpus.chelsea)) > 30);
    const tiff16 = await runImage(join(skimage, 'chessboard_GRAY_U16.tif'), { format: 'png' });
    assert.equal((await decode(tiff16.path)).format, 'png');
  });

  it('converts a CMYK JPEG to sRGB with the same colours', async () => {
    // The cat at 225×150: three searches on a quarter of the pixels; the conversion is per pixel.
    const rgb = join(scratch(), 'chelsea-225.png');
    await sharp(corpus.chelsea).resize(225).png().toFile(rgb);
    const cmyk = join(scratch(), 'cmyk.jpeg');
    await sharp(rgb).toColourspace('cmyk').jpeg({ quality: 95 }).toFile(cmyk);
    assert.equal((await sharp(cmyk).metadata()).space, 'cmyk');
    let png = '';
    for (const format of ['jpeg', 'webp', 'png'] as const) {
      const result = await runImage(cmyk, { format });
      const meta = await sharp(result.path).metadata();
      assert.equal(meta.space, 'srgb', format);
      assert.equal(meta.channels, 3, format);
      assert.ok((await psnr(result.path, rgb)) > 28, format);
      png = result.path;
    }
    // Colour, not just grey levels: mean red/green/blue of the PNG as the CMYK file shows through its profile.
    const a = await sharp(png).stats();
    const b = await sharp(await sharp(cmyk).toColourspace('srgb').png().toBuffer()).stats();
    for (let c = 0; c < 3; c++) {
      const [x, y] = [a.channels[c]?.mean ?? 0, b.channels[c]?.mean ?? 0];
      assert.ok(Math.abs(x - y) < 3, `channel ${c}: ${x} vs ${y}`);
    }
  });

  it('converts an embedded ICC profile to sRGB by default', async () => {
    // The 320×240 crop keeps the camera's ICC profile: a WebP search on a sixteenth of the pixels.
    assert.equal((await decode(smallCorpus.canonPhoto320)).hasIcc, true);
    const result = await runImage(smallCorpus.canonPhoto320, { format: 'webp' });
    const out = await decode(result.path);
    assert.equal(out.hasIcc, false);
    assert.ok((await ssim(result.path, sharp(smallCorpus.canonPhoto320).toColourspace('srgb'))) > 0.95);
  });
});
