/** Behaviour every WebhookStore must have (SQLite now; any scaled store later). */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, it } from 'node:test';
import type { NewWebhookDelivery, WebhookStore } from '../../src/webhooks/webhook-store.ts';

export interface WebhookStoreUnderTest {
  store: WebhookStore;
  close(): Promise<void>;
}

export type WebhookStoreFactory = () => Promise<WebhookStoreUnderTest>;

export function webhookStoreContract(name: string, factory: WebhookStoreFactory): void {
  describe(`WebhookStore contract: ${name}`, () => {
    let subject: WebhookStoreUnderTest | undefined;
    const open = async () => {
      subject = await factory();
      return subject.store;
    };
    afterEach(async () => {
      await subject?.close();
      subject = undefined;
    });

    const delivery = (overrides: Partial<NewWebhookDelivery> = {}): NewWebhookDelivery => ({
      id: randomUUID(),
      jobId: 'job-1',
      accountId: 'acct-1',
      url: 'https://example.test/hook',
      payload: '{"id":"job-1","status":"completed"}',
      ...overrides,
    });

    it('creates a pending delivery due now', async () => {
      const store = await open();
      const input = delivery();
      const created = await store.create(input, 1000);
      assert.deepEqual(created, {
        ...input,
        state: 'pending',
        attempts: 0,
        nextAttemptAt: 1000,
        createdAt: 1000,
        updatedAt: 1000,
      });
      assert.deepEqual(await store.get(input.id), created);
      assert.equal(await store.get('missing'), undefined);
    });

    it('creates idempotently: a second create of an id stores nothing and returns the first', async () => {
      const store = await open();
      const first = delivery();
      const created = await store.create(first, 1000);
      const again = await store.create({ ...first, payload: '{"other":true}', url: 'https://x.test/' }, 2000);
      assert.deepEqual(again, created);
      assert.deepEqual(await store.listForJob(first.jobId), [{ ...created, attemptLog: [] }]);
    });

    it('claims only due pending deliveries, each once, oldest due first', async () => {
      const store = await open();
      const a = delivery();
      const b = delivery();
      const later = delivery();
      await store.create(b, 200);
      await store.create(a, 100);
      await store.create(later, 5000);
      assert.equal(await store.nextDueAt(), 100);
      const claimed = await store.claimDue(1000, 10);
      assert.deepEqual(
        claimed.map((d) => d.id),
        [a.id, b.id],
      );
      assert.ok(claimed.every((d) => d.state === 'sending'));
      assert.deepEqual(await store.claimDue(1000, 10), [], 'a claimed delivery is not claimed again');
      assert.equal(await store.nextDueAt(), 5000);
      assert.deepEqual(await store.claimDue(1000, 0), []);
    });

    it('respects the claim limit', async () => {
      const store = await open();
      for (let i = 0; i < 5; i++) await store.create(delivery(), i);
      assert.equal((await store.claimDue(10, 2)).length, 2);
      assert.equal((await store.claimDue(10, 10)).length, 3);
    });

    it('concurrent claims never hand out the same delivery twice', async () => {
      const store = await open();
      for (let i = 0; i < 20; i++) await store.create(delivery(), i);
      const batches = await Promise.all(Array.from({ length: 8 }, () => store.claimDue(100, 4)));
      const ids = batches.flat().map((d) => d.id);
      assert.equal(ids.length, 20);
      assert.equal(new Set(ids).size, 20);
    });

    it('claims one delivery for its due attempt only, and takes back a claim left sending with it', async () => {
      const store = await open();
      const input = delivery();
      await store.create(input, 100);
      assert.equal(await store.claim(input.id, 99, 150), undefined, 'another due time is a stale entry');
      assert.equal(await store.claim('missing', 100, 150), undefined);
      const claimed = await store.claim(input.id, 100, 150);
      assert.equal(claimed?.state, 'sending');
      assert.equal(claimed?.updatedAt, 150);
      // The queue hands the attempt to another worker only when the first one's process is gone.
      assert.equal((await store.claim(input.id, 100, 160))?.state, 'sending');
      await store.recordAttempt(input.id, { at: 160, statusCode: 500, error: undefined, durationMs: 1 });
      await store.reschedule(input.id, 900, 170);
      assert.equal(await store.claim(input.id, 100, 180), undefined, 'the old due time is gone');
      assert.equal((await store.claim(input.id, 900, 900))?.attempts, 1);
      await store.markSucceeded(input.id, 950);
      assert.equal(await store.claim(input.id, 900, 960), undefined, 'a finished delivery is not claimed');
      const replayed = await store.replay(input.id, 1000);
      assert.equal((await store.claim(input.id, replayed!.nextAttemptAt!, 1001))?.state, 'sending');
    });

    it('lists pending deliveries due by a time, oldest due first, without claiming them', async () => {
      const store = await open();
      const late = delivery();
      const early = delivery();
      const future = delivery();
      const sending = delivery();
      await store.create(late, 200);
      await store.create(early, 100);
      await store.create(future, 5000);
      await store.create(sending, 50);
      await store.claim(sending.id, 50, 60);
      assert.deepEqual(
        (await store.listDue(1000, 10)).map((d) => d.id),
        [early.id, late.id],
      );
      assert.deepEqual(
        (await store.listDue(1000, 1)).map((d) => d.id),
        [early.id],
      );
      assert.deepEqual(await store.listDue(99, 10), []);
      assert.equal((await store.get(early.id))?.state, 'pending');
    });

    it('records numbered attempts, reschedules and finishes', async () => {
      const store = await open();
      const input = delivery();
      await store.create(input, 0);
      await store.claimDue(0, 1);
      assert.equal(
        await store.recordAttempt(input.id, { at: 10, statusCode: 500, error: undefined, durationMs: 12 }),
        1,
      );
      await store.reschedule(input.id, 500, 20);
      assert.deepEqual(await store.claimDue(499, 1), []);
      const [again] = await store.claimDue(500, 1);
      assert.equal(again?.attempts, 1);
      assert.equal(
        await store.recordAttempt(input.id, {
          at: 600,
          statusCode: undefined,
          error: 'ECONNREFUSED',
          durationMs: 3,
        }),
        2,
      );
      await store.markFailed(input.id, 700);
      const failed = await store.get(input.id);
      assert.equal(failed?.state, 'failed');
      assert.equal(failed?.nextAttemptAt, undefined);
      assert.equal(failed?.attempts, 2);
      assert.equal(await store.nextDueAt(), undefined);

      const [listed] = await store.listForJob('job-1');
      assert.deepEqual(listed?.attemptLog, [
        { attempt: 1, at: 10, statusCode: 500, error: undefined, durationMs: 12 },
        { attempt: 2, at: 600, statusCode: undefined, error: 'ECONNREFUSED', durationMs: 3 },
      ]);
    });

    it("lists a job's deliveries, filtered by account", async () => {
      const store = await open();
      const mine = delivery({ jobId: 'job-x', accountId: 'acct-a' });
      const theirs = delivery({ jobId: 'job-x', accountId: 'acct-b' });
      await store.create(mine, 1);
      await store.create(theirs, 2);
      await store.create(delivery({ jobId: 'job-y', accountId: 'acct-a' }), 3);
      assert.deepEqual(
        (await store.listForJob('job-x')).map((d) => d.id),
        [mine.id, theirs.id],
      );
      assert.deepEqual(
        (await store.listForJob('job-x', 'acct-a')).map((d) => d.id),
        [mine.id],
      );
      assert.deepEqual(await store.listForJob('job-none'), []);
    });

    it("lists an account's deliveries across its jobs, newest first, in keyset pages with their attempts", async () => {
      const store = await open();
      const made: string[] = [];
      for (const [index, jobId] of ['job-1', 'job-2', 'job-3', 'job-4'].entries()) {
        const d = delivery({ jobId, accountId: 'acct-a' });
        await store.create(d, 100 + index);
        made.push(d.id);
      }
      // Two in one millisecond: ties are broken by id.
      for (const jobId of ['job-5', 'job-6']) {
        const d = delivery({ jobId, accountId: 'acct-a' });
        await store.create(d, 200);
        made.push(d.id);
      }
      await store.create(delivery({ accountId: 'acct-b' }), 150);
      await store.recordAttempt(made[1]!, { at: 101, statusCode: 500, error: undefined, durationMs: 4 });
      const seen: string[] = [];
      let after: Parameters<typeof store.listForAccount>[1]['after'];
      let pages = 0;
      do {
        const page = await store.listForAccount('acct-a', { limit: 4, after });
        seen.push(...page.deliveries.map((d) => d.id));
        for (const d of page.deliveries) assert.equal(d.accountId, 'acct-a');
        const withAttempt = page.deliveries.find((d) => d.id === made[1]);
        if (withAttempt)
          assert.deepEqual(
            withAttempt.attemptLog.map((a) => a.statusCode),
            [500],
          );
        after = page.next;
        pages += 1;
      } while (after !== undefined);
      assert.equal(pages, 2);
      const newestTwo = made.slice(4).sort().reverse();
      assert.deepEqual(seen, [...newestTwo, made[3], made[2], made[1], made[0]]);
      assert.deepEqual((await store.listForAccount('acct-none', { limit: 4 })).deliveries, []);
    });

    it('resets deliveries left sending (crash recovery) and nothing else', async () => {
      const store = await open();
      const sending = delivery();
      const done = delivery();
      const waiting = delivery();
      await store.create(sending, 0);
      await store.create(done, 0);
      await store.claimDue(0, 2);
      await store.markSucceeded(done.id, 5);
      await store.create(waiting, 9_999);
      assert.equal(await store.resetSending(100), 1);
      assert.deepEqual(await store.get(sending.id), {
        ...(await store.get(sending.id))!,
        state: 'pending',
        nextAttemptAt: 100,
      });
      assert.equal((await store.get(done.id))?.state, 'succeeded');
      assert.deepEqual(
        (await store.claimDue(100, 10)).map((d) => d.id),
        [sending.id],
      );
    });

    it('replays only finished deliveries, for the right account, with a fresh run of attempts', async () => {
      const store = await open();
      const input = delivery({ accountId: 'acct-r' });
      await store.create(input, 0);
      assert.equal(await store.replay(input.id, 1), undefined, 'pending is not replayable');
      await store.claimDue(0, 1);
      assert.equal(await store.replay(input.id, 1), undefined, 'sending is not replayable');
      await store.recordAttempt(input.id, { at: 1, statusCode: 200, error: undefined, durationMs: 1 });
      await store.markSucceeded(input.id, 2);
      assert.equal(await store.replay(input.id, 3, 'acct-other'), undefined);
      assert.equal(await store.replay('missing', 3), undefined);
      const replayed = await store.replay(input.id, 3, 'acct-r');
      assert.equal(replayed?.state, 'pending');
      assert.equal(replayed?.attempts, 0);
      assert.equal(replayed?.nextAttemptAt, 3);
      await store.claimDue(3, 1);
      // Attempt numbers continue across replays; the log keeps the whole history.
      assert.equal(
        await store.recordAttempt(input.id, { at: 4, statusCode: 200, error: undefined, durationMs: 1 }),
        2,
      );
    });
  });
}
