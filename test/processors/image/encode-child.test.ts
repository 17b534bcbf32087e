/**
 * Large images are encoded and scored in the encoder's child process (encode-process.ts), with the bytes
 * the service would have written itself. The size threshold is lowered to 0 here so a small image takes
 * the child's path: each format and level that can go there is encoded once in process and once through
 * the child, and the two outputs must be the same bytes. The child's memory limit is its own: an encode
 * that outgrows it is a 422 in the error catalog's shape, and the processor goes on serving.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { PressoError } from '../../../src/errors/catalog.ts';
import { detectFile } from '../../../src/media/detect.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import type { Processor } from '../../../src/processors/processor.ts';
import { useScratch } from '../../support/scratch.ts';
import { type SpawnWatch, watchSpawns } from '../../support/spawn-watch.ts';
import { TEST_TIME_BUDGET_MS } from './run-image.ts';

const scratch = useScratch('presso-encode-child-');
const time = { timeBudgetMs: TEST_TIME_BUDGET_MS, timeFloorMs: TEST_TIME_BUDGET_MS };
const inProcess = createImageProcessor(time);
const throughChild = createImageProcessor({ ...time, encodeInProcessBytes: 0 });

/** Every start of the encoder's child (test/support/spawn-watch.ts). */
const childStarts: string[][] = [];
let spawns: SpawnWatch | undefined;
before(() => {
  spawns = watchSpawns((argv) => {
    if (argv.some((arg) => arg.endsWith('encode-child.ts'))) childStarts.push(argv);
  });
});
after(() => spawns?.stop());

/** Noise over a gradient: every encoder has work to do, and the search runs its course. */
async function photoLike(path: string, width: number, height: number, alpha = false): Promise<void> {
  const gradient = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#4a7ab0',
      noise: { type: 'gaussian', mean: 128, sigma: 24 },
    },
  })
    .blur(1.5)
    .raw()
    .toBuffer();
  let image = sharp(gradient, { raw: { width, height, channels: 3 } }).linear(0.8, 20);
  if (alpha) image = image.ensureAlpha(0.6);
  // A copyright in EXIF: the default metadata mode keeps it, so the child must get the header's bytes.
  await image
    .withExif({ IFD0: { Copyright: 'Presso test' } })
    .png()
    .toFile(path);
}

async function run(processor: Processor, input: string, params: Record<string, unknown>) {
  const detected = await detectFile(input);
  assert.ok(detected);
  const workDir = await mkdtemp(join(scratch(), 'job-'));
  const result = await processor.process({
    input: { ...detected, path: input, name: basename(input), size: (await stat(input)).size },
    params,
    workDir,
    signal: new AbortController().signal,
    wantMetadata: false,
  });
  const bytes = await readFile(result.path);
  return {
    result,
    bytes,
    left: await readdir(workDir),
    sha: createHash('sha256').update(bytes).digest('hex'),
  };
}

describe('image processor: the encoder child process', () => {
  const cases = [
    { format: 'webp', compression: 'high' },
    { format: 'webp', compression: 'lossless' },
    { format: 'avif', compression: 'medium' },
    { format: 'avif', compression: 'lossless' },
    { format: 'gif', compression: 'high' },
    { format: 'jpeg', compression: 'high' },
    { format: 'jpeg', compression: 'lossless' },
    { format: 'tiff', compression: 'high' },
  ];
  for (const params of cases) {
    it(`gives the in-process bytes for ${params.format} ${params.compression}`, async () => {
      const input = join(scratch(), `${params.format}-${params.compression}.png`);
      // 0.08 MP: like any image under the search mosaic's 0.5 MP (pixels.ts), searched whole, as the
      // 480×360 (0.17 MP) and 720x540 (0.39 MP) of before were; only the encoders' work shrinks.
      await photoLike(input, 320, 240);
      const here = await run(inProcess, input, params);
      const starts = childStarts.length;
      const there = await run(throughChild, input, params);
      assert.ok(childStarts.length > starts, 'the encode went through the child');
      assert.equal(there.result.format, here.result.format);
      assert.equal(there.sha, here.sha, 'same bytes through the child as in process');
      // Search rounds that lost, the reference mosaic and the child's job files are gone.
      assert.deepEqual(there.left, [basename(there.result.path)]);
    });
  }

  it('keeps alpha, flattens for JPEG and scores the same through the child', async () => {
    const input = join(scratch(), 'alpha.png');
    await photoLike(input, 320, 240, true);
    for (const format of ['jpeg', 'webp']) {
      const here = await run(inProcess, input, { format, compression: 'medium' });
      const there = await run(throughChild, input, { format, compression: 'medium' });
      assert.equal(there.sha, here.sha, `${format}: same bytes through the child`);
    }
  });

  it('answers a 422 when the encode outgrows the child memory limit, and serves on', async () => {
    // libheif allocates its image (~12 MP lossless here) past 900 MB: Node starts under it, the encode cannot.
    const limited = createImageProcessor({
      ...time,
      encodeInProcessBytes: 0,
      encodeChildMemory: 900_000_000,
    });
    // 12 MP of one colour: libheif's allocation follows the pixel count, not the detail (drawing 12 MP of
    // blurred noise cost 2.8 CPU-s, upscaling a 1000×750 photo-like image and writing it 1.7).
    const input = join(scratch(), 'large.png');
    await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#4a7ab0' } })
      .png()
      .toFile(input);
    await assert.rejects(run(limited, input, { format: 'avif', compression: 'lossless' }), (error) => {
      assert.ok(error instanceof PressoError);
      assert.equal(error.code, 'INPUT_UNPROCESSABLE');
      assert.match(error.message, /too large to encode in this output format within the memory/);
      return true;
    });
    const small = join(scratch(), 'small.png');
    await photoLike(small, 320, 240);
    const after = await run(limited, small, { format: 'avif', compression: 'lossless' });
    assert.equal(after.result.format, 'avif');
  });
});
