/**
 * The in-flight memory budget is sized in bytes: a job's share counts channels, bytes per sample and the
 * working copies, read from the headers of real files, plus the native metric's scratch for the pixels
 * its output check scores; and a budget that could never hold the largest accepted image is refused, by
 * the config loader and by the processor.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import sharp, { type Sharp } from 'sharp';
import { ConfigError } from '../../../src/errors/catalog.ts';
import { DEFAULT_IMAGE_LIMITS } from '../../../src/processors/image/config.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import {
  jobShare,
  largestImageShare,
  memoryShare,
  SCORE_BYTES_PER_PIXEL,
  WORKING_COPIES,
} from '../../../src/processors/image/limits.ts';
import { AdmissionBudget } from '../../../src/processors/shared/admission-budget.ts';
import { scoredPixels } from '../../../src/processors/shared/metric/score.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
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

  it('a job counts the metric scratch of the pixels its output check scores', () => {
    // Large images are scored on the 3×3 mosaic of 512 px tiles; small ones whole.
    assert.equal(scoredPixels(6000, 4000), 9 * 512 * 512);
    assert.equal(scoredPixels(640, 480), 640 * 480);
    assert.equal(scoredPixels(1800, 1800), 1800 * 1800);
    const photo = { width: 6000, height: 4000, channels: 3, depth: 'uchar' };
    const share = jobShare(photo, 1, scoredPixels(6000, 4000));
    assert.equal(share, 6000 * 4000 * 3 * WORKING_COPIES + 9 * 512 * 512 * SCORE_BYTES_PER_PIXEL);
    assert.equal(jobShare(photo, 1, 0), memoryShare(photo, 1));
  });

  it('two 24 MP photos take turns under the default budget; the largest image runs alone', async () => {
    const budget = new AdmissionBudget(DEFAULT_IMAGE_LIMITS.memoryInFlight);
    const photo = jobShare({ width: 6000, height: 4000, channels: 3 }, 1, scoredPixels(6000, 4000));
    const first = await budget.acquire(photo);
    let second: (() => void) | undefined;
    const waiting = budget.acquire(photo).then((release) => {
      second = release;
    });
    await Promise.resolve();
    assert.equal(second, undefined, 'the second 24 MP photo waits for the first');
    assert.equal(budget.waiting, 1);
    first();
    await waiting;
    second!();
    // 50 MP RGBA with its scoring exceeds the budget: it is admitted alone, clamped to the whole budget.
    const side = Math.sqrt(DEFAULT_IMAGE_LIMITS.maxPixels);
    const largest = jobShare({ width: side, height: side, channels: 4 }, 1, scoredPixels(side, side));
    assert.ok(largest > budget.capacity);
    const alone = await budget.acquire(largest);
    assert.equal(budget.inUse, budget.capacity);
    alone();
    // Eight-megapixel photos, the common large case, still run two at once.
    const eight = jobShare({ width: 3266, height: 2450, channels: 3 }, 1, scoredPixels(3266, 2450));
    await budget.acquire(eight);
    await budget.acquire(eight);
    assert.equal(budget.waiting, 0);
  });
});
