/** The BullMQ queue against the shared JobQueue contract, on real Redis, each test under its own key prefix. */
import { randomBytes } from 'node:crypto';
import { BullMqJobQueue } from '../../src/jobs/bullmq-job-queue.ts';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import { jobQueueContract } from '../contracts/job-queue.contract.ts';
import { deleteKeysUnder, ensureRedis, REDIS_URL, testRedis } from '../support/services.ts';

jobQueueContract('BullMQ', async () => {
  await ensureRedis();
  const prefix = `presso-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const queues: BullMqJobQueue[] = [];
  const { hostname, port } = new URL(REDIS_URL);
  return {
    async open() {
      // Each queue opens its own connections, as another process would; short locks so a crash is seen soon.
      const queue = new BullMqJobQueue({
        connection: { host: hostname, port: Number(port), maxRetriesPerRequest: null },
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
});
