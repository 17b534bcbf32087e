/** LocalJobEvents against the JobEvents contract, and the ChangeLatch every implementation builds on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChangeLatch, LocalJobEvents } from '../../src/jobs/job-events.ts';
import { jobEventsContract } from '../contracts/job-events.contract.ts';
import { scaledMs } from '../support/time-scale.ts';

jobEventsContract('LocalJobEvents', async () => new LocalJobEvents());

describe('ChangeLatch', () => {
  it('keeps one pending change however many signals arrive before next()', async () => {
    const latch = new ChangeLatch(() => {});
    latch.signal();
    latch.signal();
    latch.signal();
    assert.equal(await latch.next(0), true);
    assert.equal(await latch.next(0), false);
  });

  it('a signal while waiting wakes the waiter and is not kept for the next call', async () => {
    const latch = new ChangeLatch(() => {});
    const waiting = latch.next(scaledMs(30_000));
    latch.signal();
    assert.equal(await waiting, true);
    assert.equal(await latch.next(0), false);
  });

  it('close() releases the waiter with false and calls its unsubscribe once', async () => {
    let unsubscribed = 0;
    const latch = new ChangeLatch(() => unsubscribed++);
    const waiting = latch.next(scaledMs(30_000));
    latch.close();
    assert.equal(await waiting, false);
    assert.equal(unsubscribed, 1);
  });
});
