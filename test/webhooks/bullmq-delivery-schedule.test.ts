/**
 * The scaled-out delivery schedule (one BullMQ job per due attempt) against the shared DeliverySchedule
 * contract, on real Redis under a key prefix of its own and a PostgreSQL store in a fresh schema.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { openPostgres } from '../../src/persistence/postgres/database.ts';
import { PgWebhookStore } from '../../src/persistence/postgres/pg-webhook-store.ts';
import { BullMqDeliverySchedule } from '../../src/webhooks/bullmq-delivery-schedule.ts';
import type { DeliverySchedule } from '../../src/webhooks/delivery-schedule.ts';
import { generateWebhookSecret, verifyWebhook } from '../../src/webhooks/signature.ts';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import { deliveryScheduleContract } from '../contracts/delivery-schedule.contract.ts';
import { deleteKeysUnder, ensureRedis, REDIS_URL, testPostgres, testRedis } from '../support/services.ts';
import { FetchOutboundClient, startReceiver, statuses, waitFor } from './helpers.ts';

let database: Awaited<ReturnType<typeof testPostgres>>;
const pools: pg.Pool[] = [];
before(async () => {
  await ensureRedis();
  database = await testPostgres();
});
after(async () => {
  for (const pool of pools) await pool.end();
  await database.close();
});

async function bullMqSubject() {
  const pool = await openPostgres(await database.schemaUrl(), { max: 4 });
  pools.push(pool);
  const store = new PgWebhookStore(pool);
  const prefix = `presso-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const { hostname, port } = new URL(REDIS_URL);
  return {
    store,
    // Each schedule opens its own connections, as another process would; short locks so a crash is seen soon.
    open: async () =>
      new BullMqDeliverySchedule(store, {
        connection: { host: hostname, port: Number(port), maxRetriesPerRequest: null },
        prefix,
        lockMs: 2000,
        reconcileMs: 1000,
      }),
    crash: (schedule: DeliverySchedule) => (schedule as BullMqDeliverySchedule).abandon(),
    async close() {
      const redis = await testRedis();
      await deleteKeysUnder(redis.redis, `${prefix}:`);
      await redis.close();
    },
  };
}

deliveryScheduleContract('BullMQ (PostgreSQL store)', bullMqSubject);

test('the dispatcher retries, deduplicates and replays through BullMQ, every attempt in the store', async () => {
  const subject = await bullMqSubject();
  const schedule = await subject.open();
  const hook = await startReceiver(statuses(500, 500, 200));
  const secret = generateWebhookSecret();
  const dispatcher = new WebhookDispatcher({
    store: subject.store,
    client: new FetchOutboundClient(),
    secretFor: async () => secret,
    userAgent: 'Presso test',
    timeoutMs: 2000,
    retrySchedule: [50, 50, 50],
    schedule,
  });
  try {
    await dispatcher.start();
    const input = {
      jobId: 'job-q',
      accountId: 'acct-1',
      url: hook.url,
      payload: { id: 'job-q' },
      key: 'job-q',
    };
    const id = await dispatcher.enqueue(input);
    // A report repeated after a crash: the same delivery, queued once.
    assert.equal(await dispatcher.enqueue(input), id);
    const done = () =>
      waitFor(async () => {
        const delivery = await subject.store.get(id);
        return delivery?.state === 'succeeded' ? delivery : undefined;
      }, 'the delivery to succeed');
    await done();
    assert.equal(await dispatcher.replay(id, 'acct-1'), true);
    await waitFor(() => hook.requests.length === 4, 'the replayed request');
    await done();
    const [listed] = await subject.store.listForJob('job-q');
    assert.deepEqual(
      listed?.attemptLog.map((a) => [a.attempt, a.statusCode]),
      [
        [1, 500],
        [2, 500],
        [3, 200],
        [4, 200],
      ],
    );
    const log = listed!.attemptLog;
    for (let i = 1; i < 3; i++) assert.ok(log[i]!.at - log[i - 1]!.at >= 50, 'a retry waited its delay');
    for (const request of hook.requests)
      assert.equal(verifyWebhook(secret, request.headers, request.body), true);
  } finally {
    await dispatcher.stop();
    await schedule.close();
    await hook.close();
    await subject.close();
  }
});
