import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { QUALITY_TARGETS } from '../../../src/processors/image/quality/targets.ts';
import { scoreOutput } from '../../../src/processors/shared/metric/score.ts';
import { corpus } from '../../support/corpus.ts';
import { decode, psnr, ssim } from '../../support/images.ts';
import { useScratch } from '../../support/scratch.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { processor, removeWorkDirs, runImage } from './run-image.ts';

const scratch = useScratch('presso-formats-');
after(removeWorkDirs);

/** One run per input and request: the format auto test compares with the loop's outputs. */
const runs = new Map<string, ReturnType<typeof runImage>>();
function runOnce(path: string, params: Record<string, unknown>): ReturnType<typeof runImage> {
  const key = `${path}\0${JSON.stringify(params)}`;
  if (!runs.has(key)) runs.set(key, runImage(path, params));
  return runs.get(key)!;
}

/**
 * The photo is a 320×240 lossless crop of the camera JPEG (small-corpus.ts): each conversion costs a
 * sixteenth of the original's, and a quarter of the 640×480 crop's (3.8 CPU-s for the four against 10.2).
 */
const photo = smallCorpus.canonPhoto320;

/** The Debian logo at 400×300 (alpha as in the 800×600 original), written once for the alpha tests. */
let alpha: Promise<string> | undefined;
function alphaPng(): Promise<string> {
  alpha ??= (async () => {
    const path = join(scratch(), 'logo-400.png');
    await sharp(corpus.alphaPng).resize(400).png().toFile(path);
    return path;
  })();
  return alpha;
}

describe('image processor: format conversion', () => {
  for (const format of ['webp', 'avif', 'png'] as const) {
    it(`converts a JPEG photo to ${format}`, async () => {
      const result = await runOnce(photo, { format });
      assert.equal(result.format, format);
      assert.equal(result.transformed, true);
      assert.match(result.path, new RegExp(`\\.${format}$`));
      const out = await decode(result.path);
      const sharpName = format === 'avif' ? 'heif' : format;
      assert.deepEqual([out.format, out.width, out.height], [sharpName, 320, 240]);
      assert.ok((await ssim(result.path, photo)) > 0.95);
      // At the default level, high, every output meets the level's perceptual target.
      const score = await scoreOutput(sharp(photo).autoOrient(), result.path);
      assert.ok(score >= QUALITY_TARGETS.high, `${format}: SSIMULACRA 2 ${score.toFixed(1)}`);
    });
  }

  it('converts a PNG to JPEG', async () => {
    const result = await runImage(corpus.chelsea, { format: 'jpeg' });
    const out = await decode(result.path);
    assert.deepEqual([result.format, out.format, out.width, out.height], ['jpeg', 'jpeg', 451, 300]);
    assert.ok((await psnr(result.path, corpus.chelsea)) > 35);
  });

  it('keeps transparency from PNG to WebP', async () => {
    const input = await alphaPng();
    const result = await runImage(input, { format: 'webp' });
    const out = await decode(result.path);
    assert.deepEqual([out.format, out.hasAlpha], ['webp', true]);
    const alphaIn = await sharp(input).extractChannel(3).raw().toBuffer();
    const alphaOut = await sharp(result.path).extractChannel(3).raw().toBuffer();
    let diff = 0;
    for (let i = 0; i < alphaIn.length; i++) diff += Math.abs((alphaIn[i] ?? 0) - (alphaOut[i] ?? 0));
    assert.ok(diff / alphaIn.length < 2, `mean alpha difference ${diff / alphaIn.length}`);
  });

  it('flattens transparency on white when converting to JPEG', async () => {
    const input = await alphaPng();
    const result = await runImage(input, { format: 'jpeg' });
    const alpha = await sharp(input).extractChannel(3).raw().toBuffer();
    const transparent = alpha.indexOf(0);
    assert.ok(transparent >= 0, 'the input has fully transparent pixels');
    const { data, info } = await sharp(result.path).raw().toBuffer({ resolveWithObject: true });
    assert.equal(info.channels, 3);
    const pixel = [...data.subarray(transparent * 3, transparent * 3 + 3)];
    assert.ok(
      pixel.every((v) => v > 240),
      `transparent pixel became ${pixel.join(',')}`,
    );
  });

  it('converts an animated GIF to animated WebP with every frame, also resized', async () => {
    const result = await runImage(corpus.animatedGif, { format: 'webp', resize: { width: 28 } });
    const out = await decode(result.path);
    assert.deepEqual([out.format, out.frames, out.width, out.height], ['webp', 24, 28, 50]);
  });

  it('auto picks a smaller modern format for a photo, the bytes that format writes alone', async () => {
    const result = await runImage(photo, { format: 'auto' });
    assert.ok(result.format === 'webp' || result.format === 'avif', result.format);
    const reencoded = await runImage(photo);
    assert.ok(
      result.outputSize < reencoded.outputSize,
      `${result.outputSize} vs JPEG ${reencoded.outputSize}`,
    );
    assert.ok((await ssim(result.path, photo)) > 0.95);
    // The candidates share one reference and reuse the probe trial, yet write what each writes alone.
    const alone = await runOnce(photo, { format: result.format });
    assert.ok((await readFile(result.path)).equals(await readFile(alone.path)));
  });

  it('auto keeps an animation animated (AVIF cannot hold one)', async () => {
    const result = await runImage(corpus.animatedGif, { format: 'auto' });
    assert.notEqual(result.format, 'avif');
    assert.equal((await decode(result.path)).frames, 24);
  });

  it('auto keeps transparency', async () => {
    const result = await runImage(await alphaPng(), { format: 'auto' });
    assert.equal((await decode(result.path)).hasAlpha, true);
  });

  it('returns an SVG optimised (same picture) by default and rasterises it on request', async () => {
    const svg =
      '<?xml version="1.0"?><!-- editor banner --><svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">' +
      '<rect width="20" height="20" fill="red"/><rect x="20" width="20" height="20" fill="blue"/></svg>';
    const path = join(scratch(), 'two.svg');
    await writeFile(path, svg);
    const kept = await runImage(path);
    assert.equal(kept.format, 'svg');
    const optimised = await readFile(kept.path, 'utf8');
    assert.ok(optimised.length < svg.length, optimised);
    assert.equal(await psnr(kept.path, path), Number.POSITIVE_INFINITY);
    const png = await runImage(path, { format: 'png', resize: { width: 80 } });
    const out = await decode(png.path);
    assert.deepEqual([out.format, out.width, out.height], ['png', 80, 40]);
    const { data } = await sharp(png.path).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.ok((data[0] ?? 0) > 200 && (data[2] ?? 0) < 50, 'left half is red');
  });

  it('declares the formats it reads and writes', () => {
    for (const format of ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff', 'svg', 'heic', 'bmp', 'ico']) {
      assert.ok(processor.inputFormats.includes(format), format);
    }
    for (const format of ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff', 'jxl', 'ico', 'svg']) {
      assert.ok(processor.outputFormats.includes(format), format);
    }
  });
});
