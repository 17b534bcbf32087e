/**
 * The per-video CRF search: a budget of trials, and the answer is the largest CRF tried whose SSIM
 * (every frame of the segments) and SSIMULACRA 2 (their sampled frames) both meet the proxy's targets
 * (the level's own for a frame as small as the proxy; encode-to-level.test.ts checks full size).
 */
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../../src/processors/video/config.ts';
import {
  MAX_TRIALS,
  proxyFrame,
  proxyTargets,
  SSIM_TARGET_DB,
  SSIMULACRA2_TARGET,
  searchCrf,
} from '../../../src/processors/video/quality-search.ts';
import { makeClip } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-crf-search-');

it('picks the largest CRF tried that meets both targets, within the trial budget', async () => {
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
    assert.ok(result.trials.length >= 1 && result.trials.length <= MAX_TRIALS, String(result.trials.length));
    // 128×96 is its own proxy: the targets are the level's.
    assert.equal(proxyFrame(128, 96).factor, 1);
    assert.deepEqual(proxyTargets(level, 1), {
      db: SSIM_TARGET_DB[level],
      ssimulacra2: SSIMULACRA2_TARGET[level],
    });
    const meets = (t: (typeof result.trials)[number]) =>
      t.db >= SSIM_TARGET_DB[level] && t.ssimulacra2 >= SSIMULACRA2_TARGET[level];
    const chosen = result.trials.find((t) => t.crf === result.crf);
    assert.ok(chosen !== undefined && meets(chosen), JSON.stringify(result));
    for (const trial of result.trials) {
      if (trial.crf > result.crf) assert.ok(!meets(trial), JSON.stringify(result));
    }
    // The same search again gives the same trials: the budget is work, never time.
    const again = await searchCrf(input, { ...run, workDir: await mkdtemp(join(scratch(), 'again-')) });
    assert.deepEqual(again, result);
  }
});
