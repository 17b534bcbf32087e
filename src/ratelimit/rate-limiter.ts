/**
 * Rolling-window request limits per API key. Embedded: in process memory; scaled: Redis, so every
 * API process counts against the same window.
 */

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees capacity again (the oldest counted request leaves it). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request for `key` against `limit` per window and returns the state after it. */
  consume(key: string, limit: number): Promise<RateLimitState>;
  /** The state without counting a request. */
  peek(key: string, limit: number): Promise<RateLimitState>;
  close(): Promise<void>;
}
