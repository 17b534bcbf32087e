import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryRateLimiter } from '../../src/ratelimit/memory-rate-limiter.ts';
import { rateLimiterContract } from '../contracts/rate-limiter.contract.ts';

rateLimiterContract('MemoryRateLimiter', async (options) => new MemoryRateLimiter(options));

describe('MemoryRateLimiter', () => {
  it('keeps memory bounded at the production limit (100,000 per 15 minutes)', async () => {
    let clock = 0;
    const windowMs = 15 * 60_000;
    const rl = new MemoryRateLimiter({ windowMs, now: () => clock });
    // 270,000 requests over three windows, one every 10 ms: 90,000 per window always fit, even
    // counting one extra 15 s bucket (1,500 requests) for the conservative bucketing.
    for (let i = 0; i < 270_000; i++) {
      clock += 10;
      assert.equal((await rl.consume('key', 100_000)).allowed, true);
    }
    // 60 sub-buckets per window; one partial extra at each edge at most.
    assert.ok(rl.bucketCount <= 62, `bucket count ${rl.bucketCount}`);
    const state = await rl.peek('key', 100_000);
    // Exactly 90,000 in the last window; bucketing may add up to one bucket's 1,500.
    assert.ok(state.remaining >= 8_500 && state.remaining <= 10_000, `remaining ${state.remaining}`);
    await rl.close();
  });

  it('never lets more than the limit through in any exact rolling window', async () => {
    let clock = 0;
    const windowMs = 60_000;
    const rl = new MemoryRateLimiter({ windowMs, now: () => clock });
    const allowedAt: number[] = [];
    // Bursty traffic at irregular steps, far above the limit.
    for (let i = 0; i < 20_000; i++) {
      clock += (i * 7919) % 23;
      if ((await rl.consume('k', 100)).allowed) allowedAt.push(clock);
    }
    for (let i = 100; i < allowedAt.length; i++) {
      // The request 100 allowances earlier must have left the window before this one was allowed.
      assert.ok(allowedAt[i]! - allowedAt[i - 100]! >= windowMs, `window overrun at ${allowedAt[i]}`);
    }
    assert.ok(allowedAt.length > 100);
    await rl.close();
  });

  it('evicts idle keys on access and on sweep', async () => {
    let clock = 0;
    const rl = new MemoryRateLimiter({ windowMs: 1000, now: () => clock });
    await rl.consume('a', 5);
    await rl.consume('b', 5);
    assert.equal(rl.keyCount, 2);
    await rl.peek('never-used', 5);
    assert.equal(rl.keyCount, 2, 'peeking an unknown key does not create it');
    clock += 1000;
    await rl.peek('a', 5);
    assert.equal(rl.keyCount, 1);
    rl.sweep();
    assert.equal(rl.keyCount, 0);
    assert.equal(rl.bucketCount, 0);
    await rl.close();
  });

  it('sweeps idle keys on its own timer', async () => {
    let clock = 0;
    const rl = new MemoryRateLimiter({ windowMs: 1000, now: () => clock, sweepIntervalMs: 5 });
    await rl.consume('a', 5);
    clock += 5000;
    for (let i = 0; i < 400 && rl.keyCount > 0; i++) await sleep(5);
    assert.equal(rl.keyCount, 0);
    await rl.close();
  });

  it('a limit of zero refuses everything', async () => {
    const rl = new MemoryRateLimiter({ windowMs: 60_000, now: () => 0 });
    assert.deepEqual(await rl.consume('k', 0), { allowed: false, limit: 0, remaining: 0, resetSeconds: 60 });
    assert.equal(rl.keyCount, 0);
    await rl.close();
  });

  it('rejects a non-positive window', () => {
    assert.throws(() => new MemoryRateLimiter({ windowMs: 0 }), RangeError);
  });
});
