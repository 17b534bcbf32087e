import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { UnprocessableInputError } from '../../../src/errors/catalog.ts';
import { corpus } from '../../support/corpus.ts';
import { decode, psnr, ssim } from '../../support/images.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

after(removeWorkDirs);

// The camera photos are 640×480 lossless crops (small-corpus.ts): same camera data, a fraction of the time.
describe('image processor: compression', () => {
  it('recompresses a real phone JPEG smaller and visually close by default', async () => {
    const result = await runImage(smallCorpus.gpsPhoto);
    assert.equal(result.format, 'jpeg');
    assert.equal(result.transformed, false);
    assert.ok(result.outputSize < result.inputSize * 0.5, `${result.inputSize} → ${result.outputSize}`);
    const out = await decode(result.path);
    assert.deepEqual([out.format, out.width, out.height], ['jpeg', 640, 480]);
    assert.ok((await psnr(result.path, smallCorpus.gpsPhoto)) > 40);
    assert.ok((await ssim(result.path, smallCorpus.gpsPhoto)) > 0.97);
  });

  // Sizes ordered ultra < high < medium, each level at its target, on this photo: quality.test.ts, which
  // makes those three requests on it.

  it('strips EXIF (and with it the GPS position) from the output', async () => {
    assert.equal((await decode(smallCorpus.gpsPhoto)).hasExif, true);
    const result = await runImage(smallCorpus.gpsPhoto, { compression: 'ultra' });
    const out = await decode(result.path);
    assert.equal(out.hasExif, false);
    assert.equal(out.orientation, undefined);
  });

  it('converts an embedded ICC profile to sRGB and drops it', async () => {
    assert.equal((await decode(smallCorpus.canonPhoto)).hasIcc, true);
    const out = await decode((await runImage(smallCorpus.canonPhoto)).path);
    assert.equal(out.hasIcc, false);
  });

  it('lossless JPEG keeps the compressed pixels byte for byte and drops the metadata', async () => {
    const result = await runImage(smallCorpus.gpsPhoto, { compression: 'lossless' });
    assert.equal(result.format, 'jpeg');
    assert.ok(result.outputSize < result.inputSize);
    assert.equal((await decode(result.path)).hasExif, false);
    const [before, afterStrip] = await Promise.all([
      sharp(smallCorpus.gpsPhoto).raw().toBuffer(),
      sharp(await readFile(result.path))
        .raw()
        .toBuffer(),
    ]);
    assert.ok(before.equals(afterStrip), 'decoded pixels must be identical');
  });

  it('lossless PNG keeps every pixel', async () => {
    const result = await runImage(corpus.astronaut, { compression: 'lossless' });
    const [a, b] = await Promise.all([
      sharp(corpus.astronaut).raw().toBuffer(),
      sharp(result.path).raw().toBuffer(),
    ]);
    assert.ok(a.equals(b));
  });

  // A graphic: the palette meets the level's SSIMULACRA 2 target (a photo PNG whose palette misses it
  // falls back to lossless: quality.test.ts).
  it('palette-quantises PNG at the default level, smaller and close', async () => {
    const result = await runImage(corpus.alphaPng);
    const meta = await sharp(result.path).metadata();
    assert.equal(meta.isPalette, true);
    assert.ok(result.outputSize < result.inputSize / 3, `${result.inputSize} → ${result.outputSize}`);
    assert.ok((await psnr(result.path, corpus.alphaPng)) > 35);
  });

  it('keeps an animated GIF animated with every frame', async () => {
    const result = await runImage(corpus.animatedGif);
    const out = await decode(result.path);
    assert.deepEqual([out.format, out.frames, out.width, out.height], ['gif', 24, 14, 25]);
    assert.ok((await psnr(result.path, corpus.animatedGif)) > 30);
  });

  it('refuses a truncated JPEG as unprocessable', async () => {
    await assert.rejects(runImage(corpus.truncatedJpeg), (error: unknown) => {
      assert.ok(error instanceof UnprocessableInputError);
      assert.equal(error.statusCode, 422);
      assert.match(error.message, /^The image is corrupt or truncated: /);
      return true;
    });
  });

  it('refuses inputs above the pixel limit', async () => {
    const { createImageProcessor } = await import('../../../src/processors/image/image-processor.ts');
    const small = createImageProcessor({ maxPixels: 1000 });
    await assert.rejects(
      small.process({
        input: {
          path: corpus.chelsea,
          name: 'chelsea.png',
          kind: 'image',
          format: 'png',
          mime: 'image/png',
          size: 1,
        },
        params: {},
        workDir: '/nonexistent',
        signal: new AbortController().signal,
        wantMetadata: false,
      }),
      UnprocessableInputError,
    );
  });

  it('stops with the abort reason when the signal is aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    controller.abort(reason);
    await assert.rejects(
      runImage(corpus.chelsea, {}, { signal: controller.signal }),
      (error) => error === reason,
    );
  });
});
