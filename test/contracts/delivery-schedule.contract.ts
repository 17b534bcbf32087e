/**
 * Behaviour every DeliverySchedule must have (the embedded store poll, BullMQ for the scaled-out mode):
 * each due attempt runs once and never early, stale entries run nothing, nothing is lost when a process
 * dies between the store and the schedule or in the middle of an attempt, and a stop hands work back.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { DeliveryAttempt, DeliverySchedule } from '../../src/webhooks/delivery-schedule.ts';
import type { WebhookDelivery, WebhookStore } from '../../src/webhooks/webhook-store.ts';
import { until } from '../support/until.ts';

export interface DeliveryScheduleUnderTest {
  store: WebhookStore;
  /** A schedule over the same store and queue (another process, in effect). */
  open(): Promise<DeliverySchedule>;
  /**
   * Makes `schedule` behave as if its process died (nothing handed back); the embedded schedule needs
   * nothing, since one process owns its store and the next start takes back every claim.
   */
  crash?(schedule: DeliverySchedule): Promise<void>;
  close(): Promise<void>;
}

interface Seen {
  id: string;
  at: number;
  state: WebhookDelivery['state'];
}

export function deliveryScheduleContract(
  name: string,
  factory: () => Promise<DeliveryScheduleUnderTest>,
): void {
  describe(`DeliverySchedule contract: ${name}`, () => {
    let subject: DeliveryScheduleUnderTest;
    const schedules: DeliverySchedule[] = [];
    const open = async () => {
      const schedule = await subject.open();
      schedules.push(schedule);
      return schedule;
    };
    beforeEach(async () => {
      subject = await factory();
    });
    afterEach(async () => {
      for (const schedule of schedules.splice(0)) {
        await schedule.stop(100);
        await schedule.close();
      }
      await subject.close();
    });

    /** A stored pending delivery due at `dueAt` (now by default). */
    async function pending(dueAt?: number): Promise<string> {
      const id = randomUUID();
      await subject.store.create(
        { id, jobId: 'job-1', accountId: 'acct-1', url: 'https://x.test/', payload: '{}' },
        dueAt ?? Date.now(),
      );
      return id;
    }

    /** An attempt that records what it saw and delivers (as the dispatcher does on a 2xx). */
    const delivering =
      (seen: Seen[]): DeliveryAttempt =>
      async (delivery) => {
        seen.push({ id: delivery.id, at: Date.now(), state: delivery.state });
        await subject.store.recordAttempt(delivery.id, {
          at: Date.now(),
          statusCode: 200,
          error: undefined,
          durationMs: 1,
        });
        await subject.store.markSucceeded(delivery.id, Date.now());
      };

    /** An attempt that hangs until its signal aborts, then does `onAbort`. */
    const hanging =
      (
        seen: Seen[],
        onAbort: (delivery: WebhookDelivery) => Promise<void> = async () => {},
      ): DeliveryAttempt =>
      async (delivery, signal) => {
        seen.push({ id: delivery.id, at: Date.now(), state: delivery.state });
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        await onAbort(delivery);
      };

    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

    it('attempts an added delivery once, claimed in the store, however often it is added', async () => {
      const schedule = await open();
      const seen: Seen[] = [];
      await schedule.start(delivering(seen));
      const id = await pending();
      const { nextAttemptAt } = (await subject.store.get(id))!;
      await schedule.add(id, nextAttemptAt!);
      await schedule.add(id, nextAttemptAt!);
      await until(() => seen.length === 1, 'the attempt');
      await settle();
      assert.deepEqual(
        seen.map((s) => [s.id, s.state]),
        [[id, 'sending']],
      );
      await until(async () => (await subject.store.get(id))?.state === 'succeeded', 'the stored success');
    });

    it('attempts a delivery no earlier than its due time', async () => {
      const schedule = await open();
      const seen: Seen[] = [];
      await schedule.start(delivering(seen));
      const dueAt = Date.now() + 400;
      const id = await pending(dueAt);
      await schedule.add(id, dueAt);
      await until(() => seen.length === 1, 'the attempt');
      assert.ok(seen[0]!.at >= dueAt, `attempted ${dueAt - seen[0]!.at} ms early`);
    });

    it('attempts nothing for an entry the store has moved past', async () => {
      const schedule = await open();
      const seen: Seen[] = [];
      const finished = await pending();
      const { nextAttemptAt } = (await subject.store.get(finished))!;
      await subject.store.markSucceeded(finished, Date.now());
      const rescheduled = await pending();
      const old = (await subject.store.get(rescheduled))!.nextAttemptAt!;
      await subject.store.reschedule(rescheduled, Date.now() + 3_600_000, Date.now());
      const sentinel = await pending();
      await schedule.start(delivering(seen));
      await schedule.add(finished, nextAttemptAt!);
      await schedule.add(rescheduled, old);
      await schedule.add(sentinel, (await subject.store.get(sentinel))!.nextAttemptAt!);
      await until(() => seen.length >= 1, 'the sentinel');
      await settle();
      assert.deepEqual(
        seen.map((s) => s.id),
        [sentinel],
      );
      assert.equal((await subject.store.get(rescheduled))?.state, 'pending');
    });

    it('attempts a stored delivery never added (a process died between the store and the schedule)', async () => {
      const id = await pending(Date.now() - 5000);
      const schedule = await open();
      const seen: Seen[] = [];
      await schedule.start(delivering(seen));
      await until(() => seen.length === 1, 'the attempt');
      assert.equal(seen[0]?.id, id);
    });

    it('attempts again a delivery whose process died in the middle of an attempt', async () => {
      const first = await open();
      const seenFirst: Seen[] = [];
      await first.start(hanging(seenFirst));
      const id = await pending();
      await first.add(id, (await subject.store.get(id))!.nextAttemptAt!);
      await until(() => seenFirst.length === 1, 'the first attempt');
      await subject.crash?.(first);

      const second = await open();
      const seen: Seen[] = [];
      await second.start(delivering(seen));
      await until(() => seen.length === 1, 'the attempt after the crash');
      assert.equal(seen[0]?.id, id);
      // The attempt is seen as it starts; its outcome is stored after.
      await until(async () => (await subject.store.get(id))?.state === 'succeeded', 'the stored success');
    });

    it('stop aborts the attempt in flight after the grace, starts nothing more, and what it hands back runs elsewhere', async () => {
      const schedule = await open();
      const seen: Seen[] = [];
      let aborted = 0;
      // The dispatcher hands an aborted attempt back: pending again in the store and on the schedule.
      await schedule.start(
        hanging(seen, async (delivery) => {
          aborted++;
          const now = Date.now();
          await subject.store.reschedule(delivery.id, now, now);
          await schedule.add(delivery.id, now);
        }),
      );
      const inFlight = await pending();
      await schedule.add(inFlight, (await subject.store.get(inFlight))!.nextAttemptAt!);
      await until(() => seen.length === 1, 'the attempt in flight');
      await schedule.stop(100);
      assert.equal(aborted, 1);
      const later = await pending();
      await schedule.add(later, (await subject.store.get(later))!.nextAttemptAt!);
      await settle();
      assert.equal(seen.length, 1, 'a stopped schedule starts nothing');

      const next = await open();
      const after: Seen[] = [];
      await next.start(delivering(after));
      await until(() => after.length === 2, 'both deliveries on the next schedule');
      assert.deepEqual(after.map((s) => s.id).sort(), [inFlight, later].sort());
    });
  });
}
