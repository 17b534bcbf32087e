/**
 * WorkPool on its own, over an in-memory source: the concurrency bound, kicks and the poll, a pump
 * that survives failing claims and failing work, and stop() (waiting, then aborting). Assertions are
 * on counts and states; the only time limits guard against a hang.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { WorkPool, type WorkSource } from '../../src/jobs/work-pool.ts';
import { until } from '../support/until.ts';

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets pending promise callbacks and immediate timers run, without waiting on the clock. */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await nextTurn();
}

/** An in-memory queue of item names; `work` decides what processing an item does. */
class ListSource implements WorkSource<string> {
  waiting: string[] = [];
  claims = 0;
  claimLimits: number[] = [];
  running = 0;
  peak = 0;
  processed: string[] = [];
  released: string[] = [];
  pumpErrors: unknown[] = [];
  workErrors: Array<{ error: unknown; id: string }> = [];
  signals = new Map<string, AbortSignal>();
  /** Claims wait for this, after taking their items, when set (to hold a pump mid-claim). */
  claimGate: Gate | undefined;
  /** Claims throw this many times first. */
  failClaims = 0;
  work: (item: string, signal: AbortSignal) => Promise<void> = async () => {};

  async claim(limit: number): Promise<string[]> {
    this.claims++;
    this.claimLimits.push(limit);
    if (this.failClaims > 0) {
      this.failClaims--;
      throw new Error('claim failed');
    }
    // Takes its items first, then waits: like a database claim that has run but not yet returned.
    const items = this.waiting.splice(0, limit);
    if (this.claimGate) await this.claimGate.promise;
    return items;
  }

  idOf(item: string): string {
    return item;
  }

  async process(item: string, signal: AbortSignal): Promise<void> {
    this.signals.set(item, signal);
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    try {
      await this.work(item, signal);
      this.processed.push(item);
    } finally {
      this.running--;
    }
  }

  release(items: readonly string[]): void {
    this.released.push(...items);
  }

  onPumpError(error: unknown): void {
    this.pumpErrors.push(error);
  }

  onWorkError(error: unknown, id: string): void {
    this.workErrors.push({ error, id });
  }
}

/** A poll long enough never to fire in a test: kicks alone drive these pools. */
const NO_POLL = 3_600_000;

describe('WorkPool', () => {
  const pools: WorkPool<string>[] = [];
  const pool = (source: WorkSource<string>, concurrency: number, pollMs = NO_POLL) => {
    const created = new WorkPool(source, { concurrency, pollMs });
    pools.push(created);
    return created;
  };
  afterEach(async () => {
    for (const created of pools.splice(0)) await created.stop(0);
  });

  it('never runs more than `concurrency` items at once, and claims only the free room', async () => {
    const source = new ListSource();
    const holds = new Map(['a', 'b', 'c', 'd', 'e'].map((id) => [id, gate()]));
    source.work = (item) => holds.get(item)!.promise;
    source.waiting = ['a', 'b', 'c', 'd', 'e'];
    const subject = pool(source, 2);
    subject.start();
    await until(() => source.running === 2, 'two items started');
    await settle();
    assert.equal(subject.inFlight, 2);
    assert.equal(subject.hasRoom, false);
    assert.deepEqual(source.waiting, ['c', 'd', 'e'], 'nothing claimed beyond the room');

    holds.get('a')!.open();
    await until(() => source.processed.length === 1 && source.running === 2, 'c took a’s place');
    await settle();
    assert.deepEqual(source.waiting, ['d', 'e'], 'one finished, one claimed');
    assert.equal(subject.inFlight, 2);

    for (const hold of holds.values()) hold.open();
    await until(() => source.processed.length === 5, 'all items processed');
    assert.equal(source.peak, 2);
    assert.deepEqual([...source.processed].sort(), ['a', 'b', 'c', 'd', 'e']);
    assert.ok(source.claimLimits.every((limit) => limit >= 1 && limit <= 2));
    assert.equal(subject.inFlight, 0);
  });

  it('picks up new work on a kick, and does nothing without one when the poll is far off', async () => {
    const source = new ListSource();
    const subject = pool(source, 4);
    subject.start();
    await until(() => source.claims === 1, 'the first pump');
    source.waiting.push('late');
    await settle();
    assert.equal(source.claims, 1, 'no pump without a kick');
    assert.deepEqual(source.processed, []);

    subject.kick();
    await until(() => source.processed.length === 1, 'the kicked pump ran the item');
    assert.deepEqual(source.processed, ['late']);
  });

  it('the poll pumps without any kick', async () => {
    const source = new ListSource();
    const subject = pool(source, 1, 5);
    subject.start();
    await until(() => source.claims >= 1, 'the first pump');
    source.waiting.push('polled');
    await until(() => source.processed.length === 1, 'the poll found the item');
    assert.deepEqual(source.processed, ['polled']);
  });

  it('a kick during a pump makes it claim again, so no new work is missed', async () => {
    const source = new ListSource();
    source.claimGate = gate();
    const subject = pool(source, 4);
    subject.start();
    await until(() => source.claims === 1, 'the pump is claiming');
    // The claim in progress has already looked (nothing due); this item arrives during it.
    source.waiting.push('during');
    subject.kick();
    subject.kick();
    await settle();
    assert.equal(source.claims, 1, 'one pump at a time');
    const held = source.claimGate;
    source.claimGate = undefined;
    held.open();
    await until(() => source.processed.length === 1, 'the item was picked up');
    assert.deepEqual(source.processed, ['during']);
  });

  it('work that fails, or throws before returning a promise, is reported and the pump goes on', async () => {
    const source = new ListSource();
    const boom = new Error('work failed');
    source.work = async (item) => {
      if (item === 'bad') throw boom;
    };
    const throwing: WorkSource<string> = {
      claim: (limit) => source.claim(limit),
      idOf: (item) => item,
      process: (item, signal) => {
        if (item === 'sync-bad') throw new Error('thrown at once');
        return source.process(item, signal);
      },
      release: (items) => source.release(items),
      onPumpError: (error) => source.onPumpError(error),
      onWorkError: (error, id) => source.onWorkError(error, id),
    };
    source.waiting = ['bad', 'sync-bad', 'good-1', 'good-2'];
    const subject = pool(throwing, 1);
    subject.start();
    await until(() => source.processed.length === 2, 'the good items ran');
    assert.deepEqual(source.processed, ['good-1', 'good-2']);
    assert.deepEqual(
      source.workErrors.map((e) => e.id),
      ['bad', 'sync-bad'],
    );
    assert.equal(source.workErrors[0]?.error, boom);
    assert.equal(subject.inFlight, 0);
    assert.equal(subject.running, true);
  });

  it('a failing claim is reported and the next pump claims again', async () => {
    const source = new ListSource();
    source.failClaims = 1;
    source.waiting = ['kept'];
    const subject = pool(source, 1);
    subject.start();
    await until(() => source.pumpErrors.length === 1, 'the failure was reported');
    assert.deepEqual(source.processed, []);
    subject.kick();
    await until(() => source.processed.length === 1, 'the next pump ran the item');
    assert.deepEqual(source.processed, ['kept']);
    assert.equal(source.pumpErrors.length, 1);
  });

  it('stop() waits for work in flight within the grace period, without aborting it', async () => {
    const source = new ListSource();
    const hold = gate();
    source.work = () => hold.promise;
    source.waiting = ['in-flight', 'not-started'];
    const subject = pool(source, 1);
    subject.start();
    await until(() => source.running === 1, 'the item started');

    let stopped = false;
    const stopping = subject.stop(600_000).then(() => {
      stopped = true;
    });
    await settle();
    assert.equal(stopped, false, 'stop() waits for the item');
    assert.equal(subject.running, false);
    subject.kick();
    hold.open();
    await stopping;
    assert.deepEqual(source.processed, ['in-flight']);
    assert.equal(source.signals.get('in-flight')?.aborted, false);
    assert.deepEqual(source.waiting, ['not-started'], 'nothing claimed after stop()');
    assert.equal(subject.inFlight, 0);
  });

  it('stop() aborts work that outlives the grace period, and resolves once it has ended', async () => {
    const source = new ListSource();
    source.work = (_item, signal) =>
      new Promise<void>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    source.waiting = ['slow-1', 'slow-2'];
    const subject = pool(source, 2);
    subject.start();
    await until(() => source.running === 2, 'both items started');

    await subject.stop(1);
    assert.equal(subject.inFlight, 0);
    assert.equal(source.running, 0);
    for (const id of ['slow-1', 'slow-2']) {
      const signal = source.signals.get(id);
      assert.ok(signal, `${id} started`);
      assert.equal(signal.aborted, true);
      assert.equal((signal.reason as Error).message, 'shutting down');
    }
    assert.deepEqual(source.processed, []);
    assert.deepEqual(
      source.workErrors.map((e) => e.id),
      ['slow-1', 'slow-2'],
    );
  });

  it('items claimed while stop() was called are released, not started', async () => {
    const source = new ListSource();
    source.claimGate = gate();
    source.waiting = ['claimed-late'];
    const subject = pool(source, 1);
    subject.start();
    await until(() => source.claims === 1, 'the pump is claiming');
    await subject.stop(0);
    source.claimGate.open();
    await until(() => source.released.length === 1, 'the claimed item was released');
    assert.deepEqual(source.released, ['claimed-late']);
    assert.deepEqual(source.processed, []);
    assert.equal(source.signals.size, 0, 'never started');
  });

  it('can be started again after stop()', async () => {
    const source = new ListSource();
    const subject = pool(source, 1);
    subject.start();
    await subject.stop(0);
    source.waiting.push('after-restart');
    subject.kick();
    await settle();
    assert.deepEqual(source.processed, [], 'a stopped pool ignores kicks');
    subject.start();
    await until(() => source.processed.length === 1, 'the restarted pool ran the item');
    assert.deepEqual(source.processed, ['after-restart']);
  });
});
