/**
 * The deadline race for in-process work and the kind-neutral Deadline: work still running at the
 * deadline or on abort is handed to `onAbandon`, and the job answers with the budget error or the
 * abort reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { withinBudget } from '../../../src/processors/shared/within-budget.ts';

/** Work that only ends when the test says so. */
function pending(): { work: Promise<string>; finish: (value: string) => void } {
  let finish: (value: string) => void = () => {};
  const work = new Promise<string>((resolve) => {
    finish = resolve;
  });
  return { work, finish };
}

describe('Deadline', () => {
  it('names what was processed and the budget in its error', () => {
    const error = new Deadline(90_000, 'the video').exceeded();
    assert.ok(error instanceof PressoError);
    assert.equal(error.statusCode, 422);
    assert.equal(error.message, 'Processing the video took longer than the time budget of 90 s.');
    assert.equal(
      new Deadline(1000).exceeded().message,
      'Processing the file took longer than the time budget of 1 s.',
    );
  });

  it('throws the budget error once no time is left', () => {
    const spent = new Deadline(0, 'the image');
    assert.equal(spent.isExceeded(), true);
    assert.throws(() => spent.remainingMs(), /took longer than the time budget/);
  });
});

describe('withinBudget', () => {
  it('returns the work result and abandons nothing when the work ends in time', async () => {
    const abandoned: Promise<unknown>[] = [];
    const result = await withinBudget(Promise.resolve('done'), {
      deadline: new Deadline(60_000),
      signal: new AbortController().signal,
      onAbandon: (work) => abandoned.push(work),
    });
    assert.equal(result, 'done');
    assert.equal(abandoned.length, 0);
  });

  it('answers at the deadline and hands over the work that is still running', async () => {
    const { work, finish } = pending();
    const abandoned: Promise<unknown>[] = [];
    await assert.rejects(
      withinBudget(work, {
        deadline: new Deadline(50, 'the image'),
        signal: new AbortController().signal,
        onAbandon: (w) => abandoned.push(w),
      }),
      /Processing the image took longer than the time budget/,
    );
    assert.deepEqual(abandoned, [work]);
    finish('late');
    assert.equal(await abandoned[0], 'late', 'the caller can wait for it to release what it holds');
  });

  it('answers an abort with its reason, and maps the work’s own failure', async () => {
    const controller = new AbortController();
    const { work } = pending();
    const race = withinBudget(work, {
      deadline: new Deadline(60_000),
      signal: controller.signal,
      onAbandon: () => {},
    });
    controller.abort(new Error('job cancelled'));
    await assert.rejects(race, /job cancelled/);
    await assert.rejects(
      withinBudget(Promise.reject(new Error('vips: bad')), {
        deadline: new Deadline(60_000),
        signal: new AbortController().signal,
        onAbandon: () => {},
        toError: (error) => new Error(`mapped: ${(error as Error).message}`),
      }),
      /mapped: vips: bad/,
    );
  });
});
