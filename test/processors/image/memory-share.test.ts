/**
 * The in-flight memory budget is sized in bytes: a job's share counts channels, bytes per sample and the
 * working copies, read from the headers of real files; and a budget that could never hold the largest
 * accepted image is refused, by the config loader and by the processor.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import sharp, { type Sharp } from 'sharp';
import { loadConfig } from '../../../src/config/index.ts';
import { ConfigError } from '../../../src/errors/catalog.ts';
import { DEFAULT_IMAGE_LIMITS } from '../../../src/processors/image/config.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { largestImageShare, memoryShare, WORKING_COPIES } from '../../../src/processors/image/limits.ts';
import { corpus } from '../../support/corpus.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-memory-share-');

async function headerOf(make: (image: Sharp) => Sharp, name: string) {
  const path = join(scratch(), name);
  await writeFile(path, await make(sharp(corpus.chelsea).resize(200, 100)).toBuffer());
  return sharp(path).metadata();
}

describe('image memory budget', () => {
  it('a share counts channels and bytes per sample, not bare pixels', async () => {
    const grey = await headerOf((i) => i.toColourspace('b-w').png(), 'grey.png');
    const rgb = await headerOf((i) => i.jpeg(), 'rgb.jpeg');
    const rgba = await headerOf((i) => i.ensureAlpha().png(), 'rgba.png');
    const deep = await headerOf((i) => i.ensureAlpha().toColourspace('rgb16').png(), 'rgba16.png');
    const pixels = 200 * 100;
    assert.equal(memoryShare(grey, 1), pixels * 1 * WORKING_COPIES);
    assert.equal(memoryShare(rgb, 1), pixels * 3 * WORKING_COPIES);
    assert.equal(memoryShare(rgba, 1), pixels * 4 * WORKING_COPIES);
    assert.equal(deep.depth, 'ushort');
    assert.equal(memoryShare(deep, 1), pixels * 8 * WORKING_COPIES);
  });

  it('an animation counts every frame', async () => {
    const meta = await sharp(corpus.animatedGif, { animated: true }).metadata();
    assert.equal(meta.pages, 24);
    assert.equal(memoryShare(meta, 24), 14 * 25 * 24 * (meta.channels ?? 0) * WORKING_COPIES);
  });

  it('the default budget holds the largest accepted image as 8-bit RGBA', () => {
    assert.equal(largestImageShare(DEFAULT_IMAGE_LIMITS), 50_000_000 * 4 * WORKING_COPIES);
    assert.ok(DEFAULT_IMAGE_LIMITS.memoryInFlight >= largestImageShare(DEFAULT_IMAGE_LIMITS));
    assert.equal(loadConfig({}).images.memoryInFlight, DEFAULT_IMAGE_LIMITS.memoryInFlight);
  });

  it('refuses a budget below the largest image, in the config and in the processor', () => {
    assert.throws(
      () => loadConfig({ PRESSO_IMAGE_MEMORY_IN_FLIGHT: '100MB' }),
      (e: unknown) => e instanceof ConfigError && /PRESSO_IMAGE_MAX_PIXELS/.test(e.message),
    );
    // Lowering the per-image cap with it is accepted: 10 MP × 8 bytes = 80 MB.
    const config = loadConfig({
      PRESSO_IMAGE_MEMORY_IN_FLIGHT: '100MB',
      PRESSO_IMAGE_MAX_PIXELS: '10000000',
    });
    assert.equal(config.images.memoryInFlight, 100_000_000);
    assert.throws(() => createImageProcessor({ memoryInFlight: 100_000_000 }), RangeError);
    assert.equal(createImageProcessor({ memoryInFlight: 100_000_000, maxPixels: 10_000_000 }).name, 'image');
  });
});
