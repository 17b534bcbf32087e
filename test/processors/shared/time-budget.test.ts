/**
 * Earned time budgets (issue 21, finding 9): a job's time budget grows with its input's size and the work its
 * header declares, from a floor up to the kind's maximum, so a tiny file cannot buy the whole budget. Budgets
 * are asserted as the numbers they are counted to, never by timing a run.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { archiveTimeMs, DEFAULT_ARCHIVE_LIMITS } from '../../../src/processors/archive/config.ts';
import { declaredVideoMegapixels } from '../../../src/processors/ffmpeg/media-budget.ts';
import { probeMedia } from '../../../src/processors/ffmpeg/probe.ts';
import { DEFAULT_IMAGE_LIMITS, IMAGE_TIME_EARNED } from '../../../src/processors/image/config.ts';
import { DEFAULT_PDF_LIMITS, PDF_TIME_EARNED } from '../../../src/processors/pdf/config.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { earnedTimeMs } from '../../../src/processors/shared/time-budget.ts';
import {
  DEFAULT_VIDEO_LIMITS,
  VIDEO_TIME_EARNED,
  videoDecodeBounds,
} from '../../../src/processors/video/config.ts';
import { createVideoProcessor } from '../../../src/processors/video/video-processor.ts';
import { ffmpeg, probe as ffprobe, makeClip, runProcessor, videoStream } from '../../support/media.ts';
import { until } from '../../support/until.ts';

const MiB = 1024 * 1024;
const limits = { timeFloorMs: 20_000, timeBudgetMs: 120_000 };
const earned = { msPerMiB: 60_000, msPerUnit: 10_000 };

describe('earnedTimeMs', () => {
  it('gives a tiny input the floor, and a large honest one what it earns up to the ceiling', () => {
    assert.equal(earnedTimeMs(limits, earned, { bytes: 0, units: 0 }), 20_000);
    assert.equal(earnedTimeMs(limits, earned, { bytes: MiB, units: 3 }), 50_000);
    assert.equal(earnedTimeMs(limits, earned, { bytes: 10 * MiB, units: 30 }), 120_000);
  });

  it('must be earned by both the size and the declared work', () => {
    // Little bytes declaring a lot of work, and a lot of bytes declaring little work, earn the same little.
    assert.equal(earnedTimeMs(limits, earned, { bytes: MiB / 10, units: 1000 }), 26_000);
    assert.equal(earnedTimeMs(limits, earned, { bytes: 1000 * MiB, units: 0.6 }), 26_000);
    // Before the header is read, the size alone bounds it.
    assert.equal(earnedTimeMs(limits, earned, { bytes: MiB / 10 }), 26_000);
  });

  it('a floor at or above the ceiling gives every input the whole budget', () => {
    const off = { timeFloorMs: 120_000, timeBudgetMs: 120_000 };
    assert.equal(earnedTimeMs(off, earned, { bytes: 1, units: 0 }), 120_000);
  });
});

describe('Deadline.limitTo', () => {
  it('lowers the budget from the start, never raises it, and names it in the error', () => {
    const deadline = new Deadline(3_600_000, 'the video');
    deadline.limitTo(7_200_000);
    assert.equal(deadline.budgetMs, 3_600_000);
    deadline.limitTo(30_000);
    assert.equal(deadline.budgetMs, 30_000);
    assert.match(deadline.exceeded().message, /time budget of 30 s/);
  });

  it('moves the abort of a signal already handed out to the new end', async () => {
    const deadline = new Deadline(3_600_000);
    const { signal } = deadline;
    deadline.limitTo(1);
    await until(() => signal.aborted, 'the signal to abort at the lowered budget');
    assert.match(String(signal.reason), /time budget of 0.001 s/);
  });
});

describe('what inputs earn, read from their real headers', () => {
  let dir: string;
  let eightK: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'presso-budget-'));
    // The audit's shape: three 8K frames of one grey, a few KB with CABAC (the audit's was 98 KB).
    eightK = join(dir, 'three-8k.mkv');
    ffmpeg([
      ...['-f', 'lavfi', '-i', 'color=c=gray:size=7680x4320:rate=1:duration=3'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', eightK],
    ]);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const probeRun = () => ({
    deadline: new Deadline(60_000),
    signal: new AbortController().signal,
    workDir: dir,
    bounds: videoDecodeBounds(DEFAULT_VIDEO_LIMITS),
  });

  it('a few KB of three 8K frames declare 100 megapixels but earn the floor and under a second', async () => {
    const bytes = (await stat(eightK)).size;
    const units = declaredVideoMegapixels(await probeMedia(eightK, 'mkv', probeRun()));
    assert.ok(Math.abs(units - (3 * 7680 * 4320) / 1e6) < 1, `${units} megapixels declared`);
    const budget = earnedTimeMs(DEFAULT_VIDEO_LIMITS, VIDEO_TIME_EARNED, { bytes, units });
    assert.ok(budget < DEFAULT_VIDEO_LIMITS.timeFloorMs + 1000, `${budget} ms earned`);
    assert.equal(DEFAULT_VIDEO_LIMITS.timeBudgetMs, 3_600_000, 'not the hour a video may take at most');
  });

  it('the video processor holds such a file to what it earned (here with no floor: its bytes alone)', async () => {
    const bytes = (await stat(eightK)).size;
    const budget = earnedTimeMs({ ...DEFAULT_VIDEO_LIMITS, timeFloorMs: 0 }, VIDEO_TIME_EARNED, { bytes });
    assert.ok(budget < 1000, `${budget} ms`);
    await assert.rejects(runProcessor(createVideoProcessor({ timeFloorMs: 0 }), eightK), (error: Error) =>
      error.message.includes(`time budget of ${budget / 1000} s`),
    );
  });

  it('an honest clip earns more than the floor and completes within it', async () => {
    const clip = makeClip(join(dir, 'honest.mp4'), { width: 640, height: 360, seconds: 2 });
    const bytes = (await stat(clip)).size;
    const units = declaredVideoMegapixels(await probeMedia(clip, 'mp4', probeRun()));
    const budget = earnedTimeMs(DEFAULT_VIDEO_LIMITS, VIDEO_TIME_EARNED, { bytes, units });
    assert.ok(budget > DEFAULT_VIDEO_LIMITS.timeFloorMs + 10_000, `${budget} ms earned`);
    const result = await runProcessor(createVideoProcessor(), clip);
    const output = ffprobe(result.path);
    assert.deepEqual([videoStream(output)?.width, videoStream(output)?.height], [640, 360]);
    assert.ok(Math.abs(Number(output.format.duration) - 2) < 0.2, output.format.duration);
  });

  it('a 32×32 PNG earns the image floor; a flat 49 MP PNG of a few KB little more, not the 2 min', async () => {
    const decoded = async (input: Buffer) => {
      const meta = await sharp(input).metadata();
      return { bytes: input.length, units: (meta.width * meta.height) / 1e6 };
    };
    const flat = (size: number) =>
      sharp({ create: { width: size, height: size, channels: 3, background: '#7f7f7f' } })
        .png()
        .toBuffer();
    const small = earnedTimeMs(DEFAULT_IMAGE_LIMITS, IMAGE_TIME_EARNED, await decoded(await flat(32)));
    assert.ok(small - DEFAULT_IMAGE_LIMITS.timeFloorMs < 100, `${small} ms`);
    const bomb = await decoded(await flat(7000));
    assert.ok(bomb.units > 48, `${bomb.units} megapixels`);
    const earnedByBomb = earnedTimeMs(DEFAULT_IMAGE_LIMITS, IMAGE_TIME_EARNED, bomb);
    assert.ok(earnedByBomb < DEFAULT_IMAGE_LIMITS.timeFloorMs + 10_000, `${earnedByBomb} ms`);
    assert.equal(DEFAULT_IMAGE_LIMITS.timeBudgetMs, 120_000);
  });

  it('PDFs earn by pages and size, archives by their listing and size', () => {
    // A one-page PDF of 20 KB, and 200 pages in 20 KB (declared, but not brought).
    const pdf = (bytes: number, pages: number) =>
      earnedTimeMs(DEFAULT_PDF_LIMITS, PDF_TIME_EARNED, { bytes, units: pages });
    assert.ok(pdf(20_000, 1) < DEFAULT_PDF_LIMITS.timeFloorMs + 2000);
    assert.equal(pdf(20_000, 200), pdf(20_000, 1000));
    assert.equal(pdf(50 * MiB, 200), DEFAULT_PDF_LIMITS.timeBudgetMs);
    // The 500-byte ZIP of the audit, and a bomb's listing: the floor and the bytes' second.
    const bomb = [{ size: 4 * 1024 ** 3 }];
    assert.ok(
      archiveTimeMs(500, [{ size: 100 }], DEFAULT_ARCHIVE_LIMITS) < DEFAULT_ARCHIVE_LIMITS.timeFloorMs + 100,
    );
    assert.ok(
      archiveTimeMs(50_000, bomb, DEFAULT_ARCHIVE_LIMITS) < DEFAULT_ARCHIVE_LIMITS.timeFloorMs + 3000,
    );
    const photos = Array.from({ length: 20 }, () => ({ size: 5 * MiB }));
    assert.equal(
      archiveTimeMs(100 * MiB, photos, DEFAULT_ARCHIVE_LIMITS),
      DEFAULT_ARCHIVE_LIMITS.timeBudgetMs,
    );
  });
});
