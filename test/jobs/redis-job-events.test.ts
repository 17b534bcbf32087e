/** Redis pub/sub job events against the shared JobEvents contract (real Redis), and across two processes' connections. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisJobEvents } from '../../src/jobs/redis-job-events.ts';
import { jobEventsContract } from '../contracts/job-events.contract.ts';
import { REDIS_URL, testRedis } from '../support/services.ts';
import { scaledMs } from '../support/time-scale.ts';

let shared: Awaited<ReturnType<typeof testRedis>>;
before(async () => {
  shared = await testRedis();
});
after(() => shared.close());

jobEventsContract(
  'RedisJobEvents',
  async () => new RedisJobEvents(shared.redis, new Redis(REDIS_URL), shared.prefix),
);

it('a change published by one process reaches a watch in another', async () => {
  const workerConnection = new Redis(REDIS_URL);
  const worker = new RedisJobEvents(workerConnection, new Redis(REDIS_URL), shared.prefix);
  const api = new RedisJobEvents(shared.redis, new Redis(REDIS_URL), shared.prefix);
  try {
    const watch = await api.watch('job-across');
    await worker.publishChanged('job-across');
    assert.equal(await watch.next(scaledMs(30_000)), true);
    watch.close();
  } finally {
    await worker.close();
    await api.close();
    workerConnection.disconnect();
  }
});
