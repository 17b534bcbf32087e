/** The BullMQ queue against the shared JobQueue contract, on real Redis, each test under its own key prefix. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { BullMqJobQueue } from '../../src/jobs/bullmq-job-queue.ts';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import { RedisTurns } from '../../src/jobs/redis-turns.ts';
import { type JobQueueUnderTest, jobQueueContract } from '../contracts/job-queue.contract.ts';
import { jobQueueFairnessContract } from '../contracts/job-queue-fairness.contract.ts';
import { deleteKeysUnder, ensureRedis, REDIS_URL, testRedis } from '../support/services.ts';
import { until } from '../support/until.ts';

const { hostname, port } = new URL(REDIS_URL);
const subjectConnection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };

async function bullMqQueues(): Promise<JobQueueUnderTest & { prefix: string }> {
  await ensureRedis();
  const prefix = `presso-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const queues: BullMqJobQueue[] = [];
  return {
    prefix,
    async open() {
      // Each queue opens its own connections, as another process would; short locks so a crash is seen soon.
      const queue = new BullMqJobQueue({
        connection: subjectConnection,
        prefix,
        name: 'jobs',
        retryDelayMs: 600_000,
        lockMs: 2000,
      });
      queues.push(queue);
      return queue;
    },
    async crash(queue: JobQueue) {
      await (queue as BullMqJobQueue).abandon();
    },
    async close() {
      for (const queue of queues) await queue.close().catch(() => {});
      const redis = await testRedis();
      await deleteKeysUnder(redis.redis, `${prefix}:`);
      await redis.close();
    },
  };
}

jobQueueContract('BullMQ', bullMqQueues);
jobQueueFairnessContract('BullMQ', bullMqQueues);

test('fair sharing holds across processes: B’s job starts after at most one more of A’s, whichever process takes it', async () => {
  const subject = await bullMqQueues();
  // Two processes, one worker each, sharing the queue; each holds one of A's jobs until its gate opens.
  const [first, second] = [await subject.open(), await subject.open()];
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const handler = async (id: string, signal: AbortSignal) => {
    started.push(id);
    if (!id.startsWith('a-held')) return;
    await new Promise<void>((resolve) => {
      gates.set(id, resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  };
  try {
    first.start(handler, 1, 0);
    second.start(handler, 1, 0);
    await first.enqueue('a-held-1', { account: 'acct-a' });
    await first.enqueue('a-held-2', { account: 'acct-a' });
    await until(() => gates.size === 2, 'both processes to hold one of A’s jobs');
    for (let i = 1; i <= 10; i++) await second.enqueue(`a-${i}`, { account: 'acct-a' });
    await first.enqueue('b-1', { account: 'acct-b' });
    // Both workers free at once: their claims race, and the choice is still Redis's, one at a time.
    for (const open of gates.values()) open();
    await until(() => started.length === 13, 'every job to run');
    const beforeB = started.slice(2, started.indexOf('b-1'));
    assert.ok(beforeB.length <= 1, `B waited for ${beforeB.length} of A's jobs: ${started.join(' ')}`);
    assert.equal(await first.size(), 0);
  } finally {
    await Promise.all([first.stop(100), second.stop(100)]);
    await subject.close();
  }
});

test('a job recorded by a process that died before adding its turn still runs: workers add the missing turn', async () => {
  const subject = await bullMqQueues();
  const queue = await subject.open();
  // What such a process left: the job recorded for the standard lane ('jobs'), and no turn.
  const connection = RedisTurns.connect(subjectConnection);
  try {
    assert.equal(
      await new RedisTurns(connection, subject.prefix, 'jobs').track('orphan', 'acct-a', false),
      true,
    );
    const ran: string[] = [];
    queue.start(async (id) => {
      ran.push(id);
    }, 1);
    await until(() => ran.length === 1, 'the job to run');
    assert.deepEqual(ran, ['orphan']);
    await until(async () => (await queue.size()) === 0, 'the job to be done with');
  } finally {
    connection.redis.disconnect();
    await queue.stop(100);
    await subject.close();
  }
});

test('a worker waiting for work runs each job queued one after another', async () => {
  const subject = await bullMqQueues();
  const queue = await subject.open();
  const ran: string[] = [];
  queue.start(async (id) => {
    ran.push(id);
  }, 1);
  try {
    for (let i = 1; i <= 5; i++) {
      await queue.enqueue(`one-${i}`, { account: 'acct-a' });
      await until(() => ran.length === i, `one-${i} to run`);
    }
    assert.deepEqual(ran, ['one-1', 'one-2', 'one-3', 'one-4', 'one-5']);
  } finally {
    await queue.stop(100);
    await subject.close();
  }
});
