/**
 * Behaviour every RateLimiter must have (memory now, Redis later). Implementations may group
 * requests into sub-buckets, so time checks allow a granularity of a tenth of the window, always in
 * the conservative direction: a request may be counted a little longer than the window, never less.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { RateLimiter } from '../../src/ratelimit/rate-limiter.ts';

export interface RateLimiterFactoryOptions {
  windowMs: number;
  now: () => number;
}

export type RateLimiterFactory = (options: RateLimiterFactoryOptions) => Promise<RateLimiter>;

const WINDOW_MS = 60_000;
const SLACK_MS = WINDOW_MS / 10;

export function rateLimiterContract(name: string, factory: RateLimiterFactory): void {
  describe(`RateLimiter contract: ${name}`, () => {
    let clock = 0;
    let limiter: RateLimiter | undefined;
    // Each test gets a unique key so a shared backend (Redis) cannot leak state between tests.
    let keyCounter = 0;
    const key = (label = 'k') => `contract-${process.pid}-${Date.now()}-${keyCounter++}-${label}`;

    const create = async () => {
      clock = 1_700_000_000_000;
      limiter = await factory({ windowMs: WINDOW_MS, now: () => clock });
      return limiter;
    };

    afterEach(async () => {
      await limiter?.close();
      limiter = undefined;
    });

    it('a fresh key is allowed with the full limit and a full-window reset', async () => {
      const rl = await create();
      const k = key();
      assert.deepEqual(await rl.peek(k, 10), { allowed: true, limit: 10, remaining: 10, resetSeconds: 60 });
      assert.deepEqual(await rl.consume(k, 10), { allowed: true, limit: 10, remaining: 9, resetSeconds: 60 });
    });

    it('peek does not count', async () => {
      const rl = await create();
      const k = key();
      for (let i = 0; i < 5; i++) await rl.peek(k, 3);
      assert.equal((await rl.consume(k, 3)).remaining, 2);
      assert.equal((await rl.peek(k, 3)).remaining, 2);
    });

    it('refuses past the limit, with remaining at 0 and refusals not counted', async () => {
      const rl = await create();
      const k = key();
      for (let i = 0; i < 3; i++) {
        const state = await rl.consume(k, 3);
        assert.equal(state.allowed, true);
        assert.equal(state.remaining, 2 - i);
      }
      for (let i = 0; i < 10; i++) {
        const refused = await rl.consume(k, 3);
        assert.equal(refused.allowed, false);
        assert.equal(refused.remaining, 0);
        assert.ok(refused.resetSeconds >= 1);
      }
      assert.equal((await rl.peek(k, 3)).allowed, false);
      // Once the three counted requests leave, the full limit is back: the refusals were not counted.
      clock += WINDOW_MS + SLACK_MS;
      assert.deepEqual(await rl.peek(k, 3), { allowed: true, limit: 3, remaining: 3, resetSeconds: 60 });
    });

    it('keys are independent', async () => {
      const rl = await create();
      const a = key('a');
      const b = key('b');
      await rl.consume(a, 1);
      assert.equal((await rl.consume(a, 1)).allowed, false);
      assert.equal((await rl.consume(b, 1)).allowed, true);
    });

    it('the window rolls: old requests leave one by one', async () => {
      const rl = await create();
      const k = key();
      for (let i = 0; i < 5; i++) await rl.consume(k, 10);
      clock += 30_000;
      for (let i = 0; i < 5; i++) await rl.consume(k, 10);
      assert.equal((await rl.consume(k, 10)).allowed, false);

      // 10 s after the refusal point the first five are still inside the window.
      clock += 20_000;
      const refused = await rl.peek(k, 10);
      assert.equal(refused.allowed, false);
      // They leave 60 s after they were made, i.e. in 10 s (plus the implementation's granularity).
      assertSecondsBetween(refused.resetSeconds, 10, 10 + SLACK_MS / 1000);

      clock += 10_000 + SLACK_MS;
      const partly = await rl.peek(k, 10);
      assert.equal(partly.allowed, true);
      assert.equal(partly.remaining, 5);
      // The oldest counted request is now the one made at 30 s; it leaves at 90 s, in 24 s.
      const elapsed = (60_000 + SLACK_MS) / 1000;
      assertSecondsBetween(partly.resetSeconds, 90 - elapsed, 90 - elapsed + SLACK_MS / 1000);

      clock += 30_000;
      assert.equal((await rl.peek(k, 10)).remaining, 10);
    });

    it('when refused, resetSeconds waits for enough of the oldest requests to leave', async () => {
      const rl = await create();
      const k = key();
      await rl.consume(k, 3);
      clock += 10_000;
      await rl.consume(k, 3);
      clock += 10_000;
      await rl.consume(k, 3);
      clock += 10_000;
      // Full at limit 3: one more fits when the first (made 30 s ago) leaves, in 30 s.
      assertSecondsBetween((await rl.consume(k, 3)).resetSeconds, 30, 30 + SLACK_MS / 1000);
      // At a limit of 2 the two oldest must leave: the second was made 20 s ago, so 40 s.
      const lowered = await rl.peek(k, 2);
      assert.equal(lowered.allowed, false);
      assert.equal(lowered.remaining, 0);
      assertSecondsBetween(lowered.resetSeconds, 40, 40 + SLACK_MS / 1000);
    });

    it('remaining is never negative when the limit drops below the count', async () => {
      const rl = await create();
      const k = key();
      for (let i = 0; i < 5; i++) await rl.consume(k, 10);
      const state = await rl.consume(k, 2);
      assert.equal(state.allowed, false);
      assert.equal(state.remaining, 0);
      assert.equal(state.limit, 2);
    });

    it('resetSeconds is at least 1 just before a request leaves', async () => {
      const rl = await create();
      const k = key();
      await rl.consume(k, 1);
      clock += WINDOW_MS - 1;
      const state = await rl.consume(k, 1);
      assert.equal(state.allowed, false);
      assert.ok(state.resetSeconds >= 1);
    });

    it('concurrent consumes never let more than the limit through', async () => {
      const rl = await create();
      const k = key();
      const results = await Promise.all(Array.from({ length: 50 }, () => rl.consume(k, 20)));
      assert.equal(results.filter((r) => r.allowed).length, 20);
      assert.equal((await rl.peek(k, 20)).remaining, 0);
    });
  });
}

function assertSecondsBetween(actual: number, min: number, max: number): void {
  assert.ok(actual >= Math.ceil(min) && actual <= Math.ceil(max), `expected ${actual} in [${min}, ${max}]`);
}
