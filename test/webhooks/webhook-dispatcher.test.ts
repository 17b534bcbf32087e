import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type Database, openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteWebhookStore } from '../../src/persistence/sqlite/sqlite-webhook-store.ts';
import { generateWebhookSecret, verifyWebhook } from '../../src/webhooks/signature.ts';
import { WebhookDispatcher, type WebhookDispatcherOptions } from '../../src/webhooks/webhook-dispatcher.ts';
import { freePort } from '../support/ports.ts';
import { FetchOutboundClient, type Receiver, startReceiver, statuses, waitFor } from './helpers.ts';

const SECRET = generateWebhookSecret();
const USER_AGENT = 'Presso/1.0 (+https://presso.test)';
const PAYLOAD = {
  id: 'job-1',
  status: 'completed',
  output: { url: 'https://presso.test/x/out.png', size: 42 },
};

describe('WebhookDispatcher', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  function setup(overrides: Partial<WebhookDispatcherOptions> & { db?: Database } = {}) {
    const db = overrides.db ?? openDatabase(':memory:');
    const store = new SqliteWebhookStore(db);
    const client = new FetchOutboundClient();
    const dispatcher = new WebhookDispatcher({
      store,
      client,
      secretFor: async (accountId) => (accountId === 'acct-1' ? SECRET : undefined),
      userAgent: USER_AGENT,
      timeoutMs: 2000,
      retrySchedule: [50, 50, 50],
      pollIntervalMs: 1000,
      ...overrides,
    });
    cleanups.push(() => dispatcher.stop());
    return { db, store, client, dispatcher };
  }

  async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
    const started = await startReceiver(...args);
    cleanups.push(() => started.close());
    return started;
  }

  const finished = (store: SqliteWebhookStore, id: string) =>
    waitFor(async () => {
      const delivery = await store.get(id);
      return delivery && (delivery.state === 'succeeded' || delivery.state === 'failed')
        ? delivery
        : undefined;
    }, `delivery ${id} to finish`);

  it('delivers once with a valid signature and the documented headers', async () => {
    const hook = await receiver();
    const { store, dispatcher } = setup();
    await dispatcher.start();
    const id = await dispatcher.enqueue({
      jobId: 'job-1',
      accountId: 'acct-1',
      url: hook.url,
      payload: PAYLOAD,
    });
    const delivery = await finished(store, id);

    assert.equal(delivery.state, 'succeeded');
    assert.equal(hook.requests.length, 1);
    const [request] = hook.requests;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.equal(request?.headers['user-agent'], USER_AGENT);
    assert.equal(request?.headers['webhook-id'], id);
    const timestamp = Number(request?.headers['webhook-timestamp']);
    assert.ok(Math.abs(timestamp - Date.now() / 1000) < 60);
    assert.deepEqual(JSON.parse(request!.body), PAYLOAD);
    assert.equal(verifyWebhook(SECRET, request!.headers, request!.body), true);
    assert.equal(verifyWebhook(generateWebhookSecret(), request!.headers, request!.body), false);

    const [listed] = await store.listForJob('job-1', 'acct-1');
    assert.equal(listed?.attemptLog.length, 1);
    assert.equal(listed?.attemptLog[0]?.statusCode, 200);
  });

  it('retries 500s along the schedule and records every attempt', async () => {
    const hook = await receiver(statuses(500, 500, 200));
    const { store, dispatcher } = setup();
    await dispatcher.start();
    const id = await dispatcher.enqueue({
      jobId: 'job-r',
      accountId: 'acct-1',
      url: hook.url,
      payload: PAYLOAD,
    });
    const delivery = await finished(store, id);

    assert.equal(delivery.state, 'succeeded');
    assert.equal(hook.requests.length, 3);
    // The id and body are stable across retries; every attempt is signed afresh.
    for (const request of hook.requests) {
      assert.equal(request.headers['webhook-id'], id);
      assert.equal(request.body, hook.requests[0]?.body);
      assert.equal(verifyWebhook(SECRET, request.headers, request.body), true);
    }
    const [listed] = await store.listForJob('job-r');
    assert.deepEqual(
      listed?.attemptLog.map((a) => [a.attempt, a.statusCode]),
      [
        [1, 500],
        [2, 500],
        [3, 200],
      ],
    );
    // Each retry waited at least its scheduled delay after the previous attempt.
    const log = listed!.attemptLog;
    for (let i = 1; i < log.length; i++) assert.ok(log[i]!.at - log[i - 1]!.at >= 50);
  });

  it('retries 408 and 429, then gives up after the last scheduled delay', async () => {
    const hook = await receiver(statuses(408, 429, 503));
    const { store, dispatcher } = setup({ retrySchedule: [20, 20] });
    await dispatcher.start();
    const id = await dispatcher.enqueue({
      jobId: 'job-g',
      accountId: 'acct-1',
      url: hook.url,
      payload: PAYLOAD,
    });
    const delivery = await finished(store, id);
    assert.equal(delivery.state, 'failed');
    assert.equal(delivery.attempts, 3);
    assert.equal(hook.requests.length, 3);
  });

  for (const status of [410, 400, 404, 301]) {
    it(`stops at ${status} without retrying`, async () => {
      const hook = await receiver(statuses(status, 200));
      const { store, dispatcher } = setup();
      await dispatcher.start();
      const id = await dispatcher.enqueue({
        jobId: 'job-s',
        accountId: 'acct-1',
        url: hook.url,
        payload: PAYLOAD,
      });
      const delivery = await finished(store, id);
      assert.equal(delivery.state, 'failed');
      assert.equal(hook.requests.length, 1);
      const [listed] = await store.listForJob('job-s');
      assert.equal(listed?.attemptLog[0]?.statusCode, status);
    });
  }

  it('retries network errors and records them', async () => {
    // A port that was just free: connections are refused.
    const port = await freePort();
    const { store, client, dispatcher } = setup({ retrySchedule: [20] });
    await dispatcher.start();
    const url = `http://127.0.0.1:${port}/hook`;
    const id = await dispatcher.enqueue({ jobId: 'job-n', accountId: 'acct-1', url, payload: PAYLOAD });
    const delivery = await finished(store, id);
    assert.equal(delivery.state, 'failed');
    assert.equal(client.posts, 2);
    const [listed] = await store.listForJob('job-n');
    for (const attempt of listed!.attemptLog) {
      assert.equal(attempt.statusCode, undefined);
      assert.match(attempt.error ?? '', /could not be reached/);
    }
  });

  it('treats a time-out as a retryable failure', async () => {
    let calls = 0;
    const hook = await receiver((_, res) => {
      // The first request never gets an answer; the second does.
      if (calls++ > 0) res.end('ok');
    });
    // The time-out only has to end the request that is never answered; 200 ms also cut off the answered
    // retry on a machine busy enough that a local round trip took longer.
    const { store, dispatcher } = setup({ timeoutMs: 1500, retrySchedule: [20] });
    await dispatcher.start();
    const id = await dispatcher.enqueue({
      jobId: 'job-t',
      accountId: 'acct-1',
      url: hook.url,
      payload: PAYLOAD,
    });
    const delivery = await finished(store, id);
    assert.equal(delivery.state, 'succeeded');
    const [listed] = await store.listForJob('job-t');
    assert.equal(listed?.attemptLog[0]?.statusCode, undefined);
    assert.ok(listed?.attemptLog[0]?.error);
    assert.equal(listed?.attemptLog[1]?.statusCode, 200);
  });

  it('fails without sending when the account has no secret', async () => {
    const hook = await receiver();
    const { store, dispatcher } = setup();
    await dispatcher.start();
    const id = await dispatcher.enqueue({
      jobId: 'job-x',
      accountId: 'acct-gone',
      url: hook.url,
      payload: PAYLOAD,
    });
    const delivery = await finished(store, id);
    assert.equal(delivery.state, 'failed');
    assert.equal(hook.requests.length, 0);
    assert.match((await store.listForJob('job-x'))[0]?.attemptLog[0]?.error ?? '', /no webhook secret/);
  });

  it('delivers a delivery left sending by a crashed dispatcher after restart', async () => {
    const hook = await receiver();
    const db = openDatabase(':memory:');
    const crashed = new SqliteWebhookStore(db);
    // The "crashed" process stored and claimed a delivery, then died before recording anything.
    await crashed.create(
      { id: 'crashed-1', jobId: 'job-c', accountId: 'acct-1', url: hook.url, payload: '{"id":"job-c"}' },
      Date.now(),
    );
    assert.equal((await crashed.claimDue(Date.now(), 10)).length, 1);
    assert.equal((await crashed.get('crashed-1'))?.state, 'sending');

    const { store, dispatcher } = setup({ db });
    await dispatcher.start();
    const delivery = await finished(store, 'crashed-1');
    assert.equal(delivery.state, 'succeeded');
    assert.equal(hook.requests.length, 1);
    assert.equal(hook.requests[0]?.headers['webhook-id'], 'crashed-1');
    assert.equal(verifyWebhook(SECRET, hook.requests[0]!.headers, hook.requests[0]!.body), true);
  });

  it('keeps a scheduled retry across a restart', async () => {
    const hook = await receiver(statuses(503, 200));
    const db = openDatabase(':memory:');
    const first = setup({ db, retrySchedule: [60_000] });
    await first.dispatcher.start();
    // The failed attempt happens after this reading, so its retry is due at least a schedule step later.
    const beforeAttempt = Date.now();
    const id = await first.dispatcher.enqueue({
      jobId: 'job-p',
      accountId: 'acct-1',
      url: hook.url,
      payload: PAYLOAD,
    });
    await waitFor(async () => (await first.store.get(id))?.attempts === 1, 'the first attempt');
    await first.dispatcher.stop();
    const waiting = await first.store.get(id);
    assert.equal(waiting?.state, 'pending');
    assert.ok((waiting?.nextAttemptAt ?? 0) >= beforeAttempt + 60_000);

    // A new process a minute later (its clock moved on) sends the retry.
    const second = setup({ db, retrySchedule: [60_000], now: () => Date.now() + 61_000 });
    await second.dispatcher.start();
    const delivery = await finished(second.store, id);
    assert.equal(delivery.state, 'succeeded');
    assert.equal(hook.requests.length, 2);
  });

  it('replays a finished delivery', async () => {
    const hook = await receiver();
    const { store, dispatcher } = setup();
    await dispatcher.start();
    const id = await dispatcher.enqueue({
      jobId: 'job-rp',
      accountId: 'acct-1',
      url: hook.url,
      payload: PAYLOAD,
    });
    await finished(store, id);
    assert.equal(await dispatcher.replay(id, 'acct-other'), false);
    assert.equal(await dispatcher.replay(id, 'acct-1'), true);
    await waitFor(() => hook.requests.length === 2, 'the replayed request');
    const delivery = await finished(store, id);
    assert.equal(delivery.state, 'succeeded');
    assert.deepEqual(
      (await store.listForJob('job-rp'))[0]?.attemptLog.map((a) => a.attempt),
      [1, 2],
    );
  });

  it('does not send before start, and stop waits for the attempt in flight', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hook = await receiver(async (_, res) => {
      await gate;
      res.end('ok');
    });
    const { store, dispatcher } = setup();
    const id = await dispatcher.enqueue({
      jobId: 'job-w',
      accountId: 'acct-1',
      url: hook.url,
      payload: PAYLOAD,
    });
    assert.equal((await store.get(id))?.state, 'pending');
    await dispatcher.start();
    await waitFor(() => hook.requests.length === 1, 'the request to arrive');
    const stopped = dispatcher.stop();
    release();
    await stopped;
    // stop() returned only after the attempt finished and was recorded.
    assert.equal((await store.get(id))?.state, 'succeeded');
  });

  it('stop aborts an attempt past the grace period and hands the delivery back uncounted', async () => {
    const hook = await receiver(() => {
      // Never answers.
    });
    const { store, dispatcher } = setup({ timeoutMs: 30_000, stopGraceMs: 50 });
    await dispatcher.start();
    const id = await dispatcher.enqueue({
      jobId: 'job-a',
      accountId: 'acct-1',
      url: hook.url,
      payload: PAYLOAD,
    });
    await waitFor(() => hook.requests.length === 1, 'the request to arrive');
    await dispatcher.stop();
    const delivery = await store.get(id);
    assert.equal(delivery?.state, 'pending');
    assert.equal(delivery?.attempts, 0);
  });
});
