/**
 * Behaviour every JobEvents must have (in-process now, Redis pub/sub later). The subtle part of the
 * scaled version is subscribe-before-read: a change published after `watch()` resolved must reach the
 * watch even when nobody is waiting yet. Timeouts passed to `next()` are outcomes here ("nothing came"),
 * never measured; waits for a change use a long guard that only protects against a hang.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { JobEvents } from '../../src/jobs/job-events.ts';
import { scaledMs } from '../support/time-scale.ts';

export type JobEventsFactory = () => Promise<JobEvents>;

/** Long enough for any backend to deliver; only reached when a change is lost (the test then fails). */
const DELIVERY_GUARD_MS = scaledMs(30_000);
/** "Nothing more arrives": a backend delivers a published change well within this. */
const QUIET_MS = 200;

export function jobEventsContract(name: string, factory: JobEventsFactory): void {
  describe(`JobEvents contract: ${name}`, () => {
    let events: JobEvents | undefined;
    let counter = 0;
    // Unique job ids so a shared backend (Redis) cannot leak changes between tests.
    const jobId = () => `contract-${process.pid}-${Date.now()}-${counter++}`;
    const create = async () => {
      events = await factory();
      return events;
    };

    afterEach(async () => {
      await events?.close();
      events = undefined;
    });

    it('counts open watches, and a closed watch is no longer counted', async () => {
      const ev = await create();
      const id = jobId();
      const first = await ev.watch(id);
      const second = await ev.watch(id);
      const other = await ev.watch(jobId());
      assert.equal(ev.openWatches(), 3);
      first.close();
      other.close();
      assert.equal(ev.openWatches(), 1);
      second.close();
      assert.equal(ev.openWatches(), 0);
    });

    it('a change published after watch() resolved is kept until next() is called', async () => {
      const ev = await create();
      const id = jobId();
      const watch = await ev.watch(id);
      await ev.publishChanged(id);
      assert.equal(await watch.next(DELIVERY_GUARD_MS), true);
      watch.close();
    });

    it('next() wakes when a change is published while it waits', async () => {
      const ev = await create();
      const id = jobId();
      const watch = await ev.watch(id);
      const waiting = watch.next(DELIVERY_GUARD_MS);
      await ev.publishChanged(id);
      assert.equal(await waiting, true);
      watch.close();
    });

    it('several changes before next() are not lost, and are not reported more often than published', async () => {
      const ev = await create();
      const id = jobId();
      const watch = await ev.watch(id);
      for (let i = 0; i < 3; i++) await ev.publishChanged(id);
      assert.equal(await watch.next(DELIVERY_GUARD_MS), true);
      let more = 0;
      while (await watch.next(QUIET_MS)) more++;
      assert.ok(more <= 2, `${more + 1} changes reported for 3 published`);
      // After the buffered change is taken, the watch waits for a new one again.
      const waiting = watch.next(DELIVERY_GUARD_MS);
      await ev.publishChanged(id);
      assert.equal(await waiting, true);
      watch.close();
    });

    it('next() answers false when nothing changes, and false at once on an aborted signal', async () => {
      const ev = await create();
      const id = jobId();
      const watch = await ev.watch(id);
      assert.equal(await watch.next(QUIET_MS), false);
      const controller = new AbortController();
      const waiting = watch.next(DELIVERY_GUARD_MS, controller.signal);
      controller.abort();
      assert.equal(await waiting, false);
      assert.equal(await watch.next(DELIVERY_GUARD_MS, AbortSignal.abort()), false);
      watch.close();
    });

    it('a change reaches every watch of that job and no watch of another job', async () => {
      const ev = await create();
      const id = jobId();
      const other = jobId();
      const first = await ev.watch(id);
      const second = await ev.watch(id);
      const bystander = await ev.watch(other);
      await ev.publishChanged(id);
      assert.equal(await first.next(DELIVERY_GUARD_MS), true);
      assert.equal(await second.next(DELIVERY_GUARD_MS), true);
      assert.equal(await bystander.next(QUIET_MS), false);
      for (const watch of [first, second, bystander]) watch.close();
    });

    it('close() of a watch releases its waiter with false and stops its deliveries', async () => {
      const ev = await create();
      const id = jobId();
      const watch = await ev.watch(id);
      const waiting = watch.next(DELIVERY_GUARD_MS);
      watch.close();
      assert.equal(await waiting, false);
      const survivor = await ev.watch(id);
      await ev.publishChanged(id);
      assert.equal(await survivor.next(DELIVERY_GUARD_MS), true, 'other watches still work');
      survivor.close();
    });

    it('close() of the events releases every waiter with false (shutdown does not wait out time-outs)', async () => {
      const ev = await create();
      const watches = await Promise.all([ev.watch(jobId()), ev.watch(jobId())]);
      // Waits far longer than the guard: only close() can end them before it.
      const waiting = watches.map((watch) => watch.next(20 * DELIVERY_GUARD_MS));
      await ev.close();
      events = undefined;
      let guard: NodeJS.Timeout | undefined;
      const hang = new Promise<never>((_, reject) => {
        guard = setTimeout(() => reject(new Error('close() left the waiters waiting')), DELIVERY_GUARD_MS);
      });
      try {
        assert.deepEqual(await Promise.race([Promise.all(waiting), hang]), [false, false]);
      } finally {
        clearTimeout(guard);
      }
    });
  });
}
