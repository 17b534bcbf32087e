/**
 * The embedded rate limiter: a rolling window per key, kept in process memory.
 *
 * An exact sliding log would keep one timestamp per request (100,000 per key at the default limit),
 * so requests are grouped into sub-buckets of `windowMs / BUCKETS_PER_WINDOW`. A bucket stays in the
 * window until its *newest* request leaves it, so the count is never lower than an exact log's would
 * be: the limiter can refuse slightly early (by at most one bucket span) but never lets more than
 * `limit` requests through in any rolling window. Memory per key is bounded by the bucket count.
 */
import type { RateLimiter, RateLimitState } from './rate-limiter.ts';

const BUCKETS_PER_WINDOW = 60;

export interface MemoryRateLimiterOptions {
  windowMs: number;
  /** Clock in milliseconds; injectable so tests can move time. */
  now?: () => number;
  /** How often idle keys are swept (default: one window, at most a minute). */
  sweepIntervalMs?: number;
}

interface Bucket {
  /** Time of the first request; the bucket takes requests until `first + bucketMs`. */
  first: number;
  /** Time of the newest request; the bucket leaves the window at `last + windowMs`. */
  last: number;
  count: number;
}

interface KeyState {
  /** Oldest first. */
  buckets: Bucket[];
  total: number;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #windowMs: number;
  readonly #bucketMs: number;
  readonly #now: () => number;
  readonly #keys = new Map<string, KeyState>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryRateLimiterOptions) {
    if (!(options.windowMs > 0)) throw new RangeError('windowMs must be positive');
    this.#windowMs = options.windowMs;
    this.#bucketMs = options.windowMs / BUCKETS_PER_WINDOW;
    this.#now = options.now ?? Date.now;
    const sweepMs = options.sweepIntervalMs ?? Math.min(options.windowMs, 60_000);
    this.#timer = setInterval(() => this.sweep(), sweepMs);
    // A sweep timer must never keep the process alive on its own.
    this.#timer.unref();
  }

  /** Keys currently tracked (for tests and metrics). */
  get keyCount(): number {
    return this.#keys.size;
  }

  /** Buckets across every key: what memory use is proportional to. */
  get bucketCount(): number {
    let count = 0;
    for (const state of this.#keys.values()) count += state.buckets.length;
    return count;
  }

  async consume(key: string, limit: number): Promise<RateLimitState> {
    const now = this.#now();
    const state = this.#prune(key, now);
    if (limit <= 0 || (state?.total ?? 0) >= limit) return this.#refused(state, limit, now);

    const keyState = state ?? { buckets: [], total: 0 };
    if (!state) this.#keys.set(key, keyState);
    const newest = keyState.buckets.at(-1);
    if (newest && now < newest.first + this.#bucketMs && now >= newest.last) {
      newest.count++;
      newest.last = now;
    } else {
      // A new bucket also when the clock went backwards, so `last` only grows within a bucket.
      keyState.buckets.push({ first: now, last: now, count: 1 });
    }
    keyState.total++;
    return this.#allowed(keyState, limit, now);
  }

  async peek(key: string, limit: number): Promise<RateLimitState> {
    const now = this.#now();
    const state = this.#prune(key, now);
    if (limit <= 0 || (state?.total ?? 0) >= limit) return this.#refused(state, limit, now);
    return this.#allowed(state, limit, now);
  }

  /** Forgets keys whose every request has left the window. */
  sweep(): void {
    const now = this.#now();
    for (const key of this.#keys.keys()) this.#prune(key, now);
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#keys.clear();
  }

  /** Drops buckets that left the window; returns the key's state, or undefined when it is idle. */
  #prune(key: string, now: number): KeyState | undefined {
    const state = this.#keys.get(key);
    if (!state) return undefined;
    let expired = 0;
    for (const bucket of state.buckets) {
      if (bucket.last + this.#windowMs > now) break;
      expired++;
      state.total -= bucket.count;
    }
    if (expired > 0) state.buckets.splice(0, expired);
    if (state.buckets.length === 0) {
      this.#keys.delete(key);
      return undefined;
    }
    return state;
  }

  #allowed(state: KeyState | undefined, limit: number, now: number): RateLimitState {
    const oldest = state?.buckets[0];
    const resetMs = oldest ? oldest.last + this.#windowMs - now : this.#windowMs;
    return {
      allowed: true,
      limit,
      remaining: Math.max(0, limit - (state?.total ?? 0)),
      resetSeconds: toSeconds(resetMs),
    };
  }

  /** Refused: the reset is when enough of the oldest buckets have left for one more request to fit. */
  #refused(state: KeyState | undefined, limit: number, now: number): RateLimitState {
    let resetMs = this.#windowMs;
    if (state && limit > 0) {
      let total = state.total;
      for (const bucket of state.buckets) {
        total -= bucket.count;
        if (total <= limit - 1) {
          resetMs = bucket.last + this.#windowMs - now;
          break;
        }
      }
    }
    return { allowed: false, limit, remaining: 0, resetSeconds: toSeconds(resetMs) };
  }
}

function toSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
