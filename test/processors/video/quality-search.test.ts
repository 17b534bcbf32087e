/**
 * The per-video CRF search: a fixed grid of trials encoded in one run, and the answer is the largest CRF
 * whose SSIM (every frame of the segments) and SSIMULACRA 2 (their sampled frames), read between the trials,
 * both meet the proxy's targets (the level's own for a frame as small as the proxy; encode-to-level.test.ts
 * checks full size).
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../../src/processors/video/config.ts';
import { CODEC_SETTINGS } from '../../../src/processors/video/encoders.ts';
import {
  pickCrf,
  proxyFrame,
  proxyTargets,
  SSIM_TARGET_DB,
  SSIMULACRA2_TARGET,
  searchCrf,
  searchGrid,
} from '../../../src/processors/video/quality-search.ts';
import { makeClip } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-crf-search-');

it("picks the largest CRF meeting both targets between the grid's trials, the same answer twice", async () => {
  const clip = makeClip(join(scratch(), 'clip.mp4'), { seconds: 1, audio: false });
  for (const level of ['high', 'ultra'] as const) {
    const workDir = await mkdtemp(join(scratch(), `work-${level}-`));
    // The clip lies outside the work directory: the sandbox shows it to the tools read-only, as a job's input.
    const run = {
      deadline: new Deadline(30 * 60_000),
      signal: new AbortController().signal,
      workDir,
      inputs: [clip],
      bounds: videoDecodeBounds(DEFAULT_VIDEO_LIMITS),
    };
    const input = {
      ...{ path: clip, format: 'mp4', start: 0, duration: 1, filters: 'setsar=1,format=yuv420p' },
      ...{ codec: 'h264' as const, level, width: 128, height: 96 },
    };
    const result = await searchCrf(input, run);
    assert.deepEqual(
      result.trials.map((t) => t.crf),
      searchGrid('h264', level),
    );
    // 128×96 is its own proxy: the targets are the level's.
    assert.equal(proxyFrame(128, 96).factor, 1);
    const targets = proxyTargets(level, 1);
    assert.deepEqual(targets, { db: SSIM_TARGET_DB[level], ssimulacra2: SSIMULACRA2_TARGET[level] });
    // The scores fall as the CRF rises (what reading between the trials relies on).
    for (let i = 1; i < result.trials.length; i++) {
      const [a, b] = [result.trials[i - 1], result.trials[i]];
      assert.ok(a !== undefined && b !== undefined && b.db < a.db, JSON.stringify(result.trials));
    }
    assert.equal(result.crf, pickCrf(result.trials, targets, [16, 36]));
    // A trial at or below the answer meets both targets; one above the next CRF up misses one.
    const meets = (t: (typeof result.trials)[number]) =>
      t.db >= SSIM_TARGET_DB[level] && t.ssimulacra2 >= SSIMULACRA2_TARGET[level];
    for (const trial of result.trials) {
      if (trial.crf <= result.crf) assert.ok(meets(trial), JSON.stringify(result));
      if (trial.crf > result.crf + 1) assert.ok(!meets(trial), JSON.stringify(result));
    }
    // The same search again gives the same trials: the budget is work, never time.
    const again = await searchCrf(input, { ...run, workDir: await mkdtemp(join(scratch(), 'again-')) });
    assert.deepEqual(again, result);
  }
});

it('reads the answer between the trials, and below the grid by the miss when the lowest trial misses', () => {
  const targets = { db: 17.5, ssimulacra2: 72 };
  const trials = [
    { crf: 21, db: 20, ssimulacra2: 80 },
    { crf: 24, db: 19, ssimulacra2: 75 },
    { crf: 27, db: 18, ssimulacra2: 70 },
  ];
  // SSIMULACRA 2 at 25: 73.3, at 26: 71.7 (misses); SSIM meets up to 28.
  assert.equal(pickCrf(trials, targets, [16, 36]), 25);
  assert.equal(pickCrf(trials, { db: 17, ssimulacra2: 60 }, [16, 36]), 27);
  // The lowest trial misses SSIM by 1 dB: 2 CRF steps below it.
  assert.equal(pickCrf(trials, { db: 21, ssimulacra2: 72 }, [16, 36]), 19);
  assert.equal(pickCrf(trials, { db: 30, ssimulacra2: 72 }, [16, 36]), 16);
});

it("spaces the grid by the codec's CRF scale, within its range", () => {
  assert.deepEqual(searchGrid('h264', 'high'), [21, 24, 27, 30, 33]);
  assert.deepEqual(searchGrid('av1', 'high'), [29, 35, 41, 47, 53]);
  for (const codec of ['h264', 'h265', 'vp9', 'av1'] as const) {
    for (const level of ['medium', 'high', 'ultra'] as const) {
      const grid = searchGrid(codec, level);
      const [lowest, highest] = CODEC_SETTINGS[codec].range;
      assert.ok(
        grid.every((crf) => crf >= lowest && crf <= highest),
        `${codec} ${level}: ${grid}`,
      );
    }
  }
});
