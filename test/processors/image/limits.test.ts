import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { UnprocessableInputError } from '../../../src/errors/catalog.ts';
import { detectFile } from '../../../src/media/detect.ts';
import {
  createImageProcessor,
  type ImageProcessorOptions,
} from '../../../src/processors/image/image-processor.ts';
import { AdmissionBudget } from '../../../src/processors/shared/admission-budget.ts';
import { corpus } from '../../support/corpus.ts';
import { decode } from '../../support/images.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'presso-limits-'));
});
after(async () => {
  await removeWorkDirs();
  await rm(scratch, { recursive: true, force: true });
});

async function runWith(
  options: ImageProcessorOptions,
  path: string,
  params: Record<string, unknown> = {},
  signal = new AbortController().signal,
) {
  const detected = await detectFile(path);
  assert.ok(detected !== undefined);
  const workDir = await mkdtemp(join(scratch, 'job-'));
  return createImageProcessor(options).process({
    input: { ...detected, path, name: basename(path), size: (await stat(path)).size },
    params,
    workDir,
    signal,
    wantMetadata: false,
  });
}

const refused = (pattern: RegExp) => (e: unknown) => {
  assert.ok(e instanceof UnprocessableInputError, String(e));
  assert.equal(e.statusCode, 422);
  assert.match(e.message, pattern);
  return true;
};

describe('image processor: limits and safety', () => {
  it('refuses a pixel flood (14000×14000 PNG of ~200 KB) from its header without a memory spike', async () => {
    const flood = join(scratch, 'flood.png');
    // Palette quantisation of 196 MP would need ~1 GB in this test; a greyscale PNG streams.
    await sharp({ create: { width: 14000, height: 14000, channels: 3, background: '#336699' } })
      .toColourspace('b-w')
      .png({ compressionLevel: 9 })
      .toFile(flood);
    assert.ok((await stat(flood)).size < 500_000);
    global.gc?.();
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();
    await assert.rejects(runImage(flood, { format: 'webp' }), refused(/14000×14000.*196 MP.*50 MP/));
    const growth = process.memoryUsage.rss() - rssBefore;
    assert.ok(growth < 60 * 1024 * 1024, `RSS grew by ${Math.round(growth / 1048576)} MB`);
    assert.ok(performance.now() - started < 1000, 'refused before decoding');
  });

  it('sums pixels over the frames of an animation and caps the frame count', async () => {
    const framePixels = 14 * 25;
    await assert.rejects(
      runWith({ maxPixels: framePixels * 24 - 1 }, corpus.animatedGif),
      refused(/× 24 frames/),
    );
    const ok = await runWith({ maxPixels: framePixels * 24 }, corpus.animatedGif);
    assert.equal((await decode(ok.path)).frames, 24);
    await assert.rejects(runWith({ maxFrames: 10 }, corpus.animatedGif), refused(/24 frames; .* at most 10/));
  });

  it('refuses truncated and corrupt files with a clear 422, and keeps working after', async () => {
    await assert.rejects(runImage(corpus.truncatedJpeg, { format: 'webp' }), refused(/corrupt or truncated/));
    const png = await readFile(corpus.chelsea);
    const corrupt = Buffer.from(png);
    for (let i = 200; i < corrupt.length; i += 7) corrupt[i] = (corrupt[i] ?? 0) ^ 0x5a;
    const path = join(scratch, 'corrupt.png');
    await writeFile(path, corrupt);
    await assert.rejects(runImage(path, { format: 'webp' }), refused(/corrupt or truncated/));
    const cut = join(scratch, 'cut.png');
    await writeFile(cut, png.subarray(0, png.length / 2));
    await assert.rejects(runImage(cut, { format: 'jpeg' }), UnprocessableInputError);
    const fine = await runImage(corpus.chelsea, { format: 'webp' });
    assert.equal((await decode(fine.path)).width, 451);
  });

  it('stops sharp at the time budget', async () => {
    const started = performance.now();
    await assert.rejects(
      runWith({ timeBudgetMs: 1000 }, corpus.gpsPhoto, { format: 'avif', compression: 'medium' }),
      refused(/time budget of 1 s/),
    );
    assert.ok(performance.now() - started < 8000, `${performance.now() - started} ms`);
  });

  it('an encode that outlives the budget keeps its pixels reserved until it really ends', async () => {
    // Lossless AVIF of 6.75 MP is one uninterruptible libaom call of several seconds.
    const input = join(scratch, 'large.png');
    await sharp(corpus.canonPhoto).resize(3000, 2250).png({ compressionLevel: 1 }).toFile(input);
    const budget = new AdmissionBudget(100_000_000);
    const detected = await detectFile(input);
    assert.ok(detected !== undefined);
    const job = createImageProcessor({ timeBudgetMs: 400 }, budget).process({
      input: { ...detected, path: input, name: 'large.png', size: 1 },
      params: { format: 'avif', compression: 'lossless' },
      workDir: await mkdtemp(join(scratch, 'job-')),
      signal: new AbortController().signal,
      wantMetadata: false,
    });
    await assert.rejects(job, refused(/time budget/));
    assert.equal(budget.inUse, 3000 * 2250, 'the abandoned encode still holds its pixels');
    const started = performance.now();
    while (budget.inUse > 0 && performance.now() - started < 120_000) await sleep(50);
    assert.equal(budget.inUse, 0, 'released when the encode ended');
  });

  it('kills an external tool at the time budget and on abort', async () => {
    let started = performance.now();
    await assert.rejects(
      runWith({ timeBudgetMs: 1500 }, corpus.gpsPhoto, { format: 'jxl', compression: 'medium' }),
      refused(/time budget/),
    );
    assert.ok(performance.now() - started < 5000, `${performance.now() - started} ms`);
    const controller = new AbortController();
    started = performance.now();
    const job = runWith({}, corpus.gpsPhoto, { format: 'jxl' }, controller.signal);
    setTimeout(() => controller.abort(new Error('job cancelled')), 1200);
    await assert.rejects(job, /job cancelled/);
    assert.ok(performance.now() - started < 4000, `${performance.now() - started} ms`);
  });
});
