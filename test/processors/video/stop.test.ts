/**
 * A video job stopped by its time budget or by a cancel leaves no ffmpeg behind: the runner kills the
 * whole process group. The time-out is the catalogued 422 (the job fails, never retried). Processes are
 * found by the unique input path on their command line in /proc. An encode waits for its turn in the
 * admission budget before any ffmpeg starts.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { AdmissionBudget } from '../../../src/processors/shared/admission-budget.ts';
import { createVideoProcessor } from '../../../src/processors/video/video-processor.ts';
import { FAST_ENCODE, makeClip, runProcessor } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-video-stop-');

/** Processes whose command line mentions `needle`. */
async function processesWith(needle: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) found.push(Number(entry));
  }
  return found;
}

describe('stopping a video job', () => {
  let slow: string;
  before(() => {
    // Written fast (x264 ultrafast): the job's VP9 encode is what must be slow, not the input's.
    slow = makeClip(join(scratch(), 'slow-input.mp4'), {
      width: 640,
      height: 360,
      seconds: 6,
      encode: FAST_ENCODE,
    });
  });

  it('fails at its time budget with a 422 and leaves no ffmpeg running', async () => {
    const processor = createVideoProcessor({ timeBudgetMs: 400 });
    await assert.rejects(
      runProcessor(processor, slow, { format: 'webm', compression: 'medium' }),
      (error: unknown) => {
        assert.ok(error instanceof PressoError);
        assert.equal(error.statusCode, 422);
        assert.match(error.message, /took longer than the time budget/);
        return true;
      },
    );
    assert.deepEqual(await processesWith(slow), []);
  });

  it('waits for its turn in the encode budget before encoding, and releases it after', async () => {
    const budget = new AdmissionBudget(1);
    const processor = createVideoProcessor({}, budget);
    const held = await budget.acquire(1); // another encode in flight
    const short = makeClip(join(scratch(), 'turn.mp4'), { seconds: 1 });
    const job = runProcessor(processor, short, { compression: 'ultra' });
    while (budget.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(await processesWith(short), [], 'no ffmpeg runs while the job waits');
    held();
    const result = await job;
    assert.ok(result.outputSize > 0);
    assert.equal(budget.inUse, 0);
  });

  it('stops on cancel with the abort reason and leaves no ffmpeg running', async () => {
    const processor = createVideoProcessor();
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const running = runProcessor(
      processor,
      slow,
      { format: 'webm', compression: 'medium' },
      {
        signal: controller.signal,
        onProgress: () => {},
      },
    );
    // Wait until ffmpeg really runs, then cancel.
    for (let i = 0; i < 500 && (await processesWith(slow)).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort(reason);
    await assert.rejects(running, (error: unknown) => error === reason);
    assert.deepEqual(await processesWith(slow), []);
  });
});
