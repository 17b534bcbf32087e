/** The Redis rate limiter against the shared contract (real Redis), and one window across processes' clients. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisRateLimiter } from '../../src/ratelimit/redis-rate-limiter.ts';
import { rateLimiterContract } from '../contracts/rate-limiter.contract.ts';
import { REDIS_URL, testRedis } from '../support/services.ts';

let shared: Awaited<ReturnType<typeof testRedis>>;
before(async () => {
  shared = await testRedis();
});
after(() => shared.close());

rateLimiterContract(
  'RedisRateLimiter',
  async (options) => new RedisRateLimiter(shared.redis, { ...options, keyPrefix: shared.prefix }),
);

describe('RedisRateLimiter', () => {
  it('two connections (two API processes) count against one window, on the Redis clock', async () => {
    const other = new Redis(REDIS_URL);
    try {
      const a = new RedisRateLimiter(shared.redis, { windowMs: 60_000, keyPrefix: shared.prefix });
      const b = new RedisRateLimiter(other, { windowMs: 60_000, keyPrefix: shared.prefix });
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).consume('shared-key', 10)),
      );
      assert.equal(results.filter((r) => r.allowed).length, 10);
      const state = await b.peek('shared-key', 10);
      assert.deepEqual([state.allowed, state.remaining], [false, 0]);
      // The window opened at the first request: the reset is a minute from then, less the time these calls
      // took (a busy machine may take seconds), rounded up to whole seconds.
      const spent = Math.ceil((performance.now() - started) / 1000);
      assert.ok(state.resetSeconds >= 59 - spent && state.resetSeconds <= 60, `reset ${state.resetSeconds}`);
    } finally {
      other.disconnect();
    }
  });

  it('keeps one bounded value per key, expiring with the window', async () => {
    const rl = new RedisRateLimiter(shared.redis, { windowMs: 60_000, keyPrefix: shared.prefix });
    const started = performance.now();
    for (let i = 0; i < 200; i++) await rl.consume('bounded', 1000);
    const spentMs = performance.now() - started;
    const key = `${shared.prefix}ratelimit:bounded`;
    const ttl = await shared.redis.pttl(key);
    assert.ok(ttl > 0 && ttl <= 60_000, `ttl ${ttl}`);
    // 200 requests share the buckets their time spans (a bucket is 1 s of a 60 s window): one or two on a
    // quiet machine, a few more on a busy one, never one per request.
    const buckets = ((await shared.redis.get(key)) ?? '').split(';').length;
    assert.ok(buckets <= 2 + Math.ceil(spentMs / 1000), `${buckets} buckets in ${Math.round(spentMs)} ms`);
  });
});
