/** POST /1.0/upload: default compression, resize modes, the never-larger rule, and every 422 variant. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { corpus } from '../support/corpus.ts';
import { decode, psnr, ssim } from '../support/images.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { type CompletedResult, download, UUID } from './helpers.ts';

describe('POST /1.0/upload', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso();
  });
  after(() => presso?.stop());

  test('without data, compresses with the default: smaller, same size, similar pixels', async () => {
    const input = await readFile(corpus.canonPhoto);
    const response = await presso.upload(corpus.canonPhoto);
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    assert.match(result.id, UUID);
    assert.equal(result.status, undefined, 'a synchronous result carries no status');
    assert.deepEqual(result.input, {
      name: 'IMG_1054.JPG',
      type: 'image',
      format: 'jpeg',
      mime: 'image/jpeg',
      size: input.length,
      sha1: createHash('sha1').update(input).digest('hex'),
    });
    assert.equal(result.output.name, 'IMG_1054.jpeg');
    assert.equal(result.output.format, 'jpeg');
    assert.equal(result.output.mime, 'image/jpeg');
    assert.ok(result.output.size < input.length, `${result.output.size} < ${input.length}`);
    assert.match(result.url, new RegExp(`^${presso.url}/\\d{10}/${result.id}/IMG_1054\\.jpeg$`));

    const output = await download(presso, result);
    const decoded = await decode(output);
    assert.equal(decoded.format, 'jpeg');
    assert.equal(decoded.width, 1280);
    assert.equal(decoded.height, 960);
    assert.ok((await psnr(output, input)) > 30);
    assert.ok((await ssim(output, input)) > 0.9);
  });

  test('resize auto with only a width keeps the aspect ratio', async () => {
    const response = await presso.upload(corpus.chelsea, { image: { resize: { width: 200 } } });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    const output = await download(presso, result);
    const decoded = await decode(output);
    assert.equal(decoded.format, 'png');
    assert.equal(decoded.width, 200);
    assert.equal(decoded.height, Math.round((300 * 200) / 451));
    assert.ok((await ssim(output, corpus.chelsea)) > 0.85);
  });

  test('resize fit gives exactly the box, cropped around the centre', async () => {
    const response = await presso.upload(corpus.canonPhoto, {
      image: { resize: { width: 300, height: 300, mode: 'fit' } },
    });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    const output = await download(presso, result);
    const decoded = await decode(output);
    assert.equal(decoded.width, 300);
    assert.equal(decoded.height, 300);
    // The centre square of the input, scaled down, is what a viewer should see.
    const reference = sharp(corpus.canonPhoto).extract({ left: 160, top: 0, width: 960, height: 960 });
    assert.ok((await ssim(output, reference)) > 0.8);
  });

  test('format conversion produces the requested format', async () => {
    const response = await presso.upload(corpus.chelsea, { image: { format: 'webp' } });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    assert.equal(result.output.format, 'webp');
    assert.equal(result.output.name, 'chelsea.webp');
    const output = await download(presso, result);
    const decoded = await decode(output);
    assert.equal(decoded.format, 'webp');
    assert.deepEqual([decoded.width, decoded.height], [451, 300]);
    assert.ok((await psnr(output, corpus.chelsea)) > 30);
  });

  test('a PNG output is never larger than its already-optimal input', async () => {
    // A tiny palette PNG written at maximum effort: re-encoding cannot win.
    const input = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } })
      .png({ palette: true, compressionLevel: 9, effort: 10 })
      .toBuffer();
    const response = await presso.upload(input, undefined, undefined, 'tiny.png');
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    assert.ok(result.output.size <= result.input.size, `${result.output.size} <= ${result.input.size}`);
    assert.equal(result.input.size, input.length);
    const output = await download(presso, result);
    assert.equal(output.length, result.output.size);
    const [a, b] = await Promise.all([sharp(output).raw().toBuffer(), sharp(input).raw().toBuffer()]);
    assert.deepEqual(a, b, 'pixels are identical');
    assert.equal((await decode(output)).format, 'png');
  });

  for (const [name, path] of [
    ['a palette PNG', corpus.palettePng],
    ['an RGBA PNG', corpus.alphaPng],
  ] as const) {
    test(`${name} with default compression is never larger than its input`, async () => {
      const input = await readFile(path);
      const response = await presso.upload(path);
      assert.equal(response.status, 200);
      const result = (await response.json()) as CompletedResult;
      assert.equal(result.output.format, 'png');
      assert.ok(result.output.size <= input.length, `${result.output.size} <= ${input.length}`);
      const output = await download(presso, result);
      const [a, b] = [await decode(output), await decode(input)];
      assert.deepEqual([a.width, a.height, a.hasAlpha], [b.width, b.height, b.hasAlpha]);
      assert.ok((await psnr(output, input)) > 30);
    });
  }
});
