/**
 * The scaled-out rate limiter: the embedded limiter's rolling window (memory-rate-limiter.ts: requests
 * grouped in 60 sub-buckets per window, a bucket counted until its newest request leaves, so the count is
 * never lower than an exact log's) kept in Redis, one string per key, read and written by one Lua script.
 * Redis runs a script atomically, so every API process counts against the same window and concurrent
 * requests can never let more than the limit through. The clock is Redis's own (`TIME`): API processes on
 * machines whose clocks disagree still share one window. The limit and headers are the embedded ones.
 */
import type { Redis } from 'ioredis';
import type { RateLimiter, RateLimitState } from './rate-limiter.ts';

const BUCKETS_PER_WINDOW = 60;

/**
 * KEYS[1]: the key's buckets, "first,last,count;…" oldest first. ARGV: now (ms; empty: Redis TIME),
 * window ms, bucket ms, limit, 1 to count the request. Returns {allowed 0/1, total after, reset ms}.
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = tonumber(ARGV[2])
local bucketMs = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local count = ARGV[5] == '1'
local buckets = {}
local total = 0
local stored = redis.call('GET', KEYS[1])
if stored then
  for first, last, n in string.gmatch(stored, '(%-?%d+),(%-?%d+),(%d+)') do
    first = tonumber(first); last = tonumber(last); n = tonumber(n)
    if last + window > now then
      table.insert(buckets, {first, last, n})
      total = total + n
    end
  end
end
local allowed = limit > 0 and total < limit
if allowed and count then
  local newest = buckets[#buckets]
  if newest and now < newest[1] + bucketMs and now >= newest[2] then
    newest[2] = now
    newest[3] = newest[3] + 1
  else
    table.insert(buckets, {now, now, 1})
  end
  total = total + 1
end
local resetMs = window
if allowed then
  if #buckets > 0 then resetMs = buckets[1][2] + window - now end
elseif limit > 0 then
  local left = total
  for i = 1, #buckets do
    left = left - buckets[i][3]
    if left <= limit - 1 then
      resetMs = buckets[i][2] + window - now
      break
    end
  end
end
if #buckets == 0 then
  redis.call('DEL', KEYS[1])
else
  local parts = {}
  for i = 1, #buckets do parts[i] = buckets[i][1] .. ',' .. buckets[i][2] .. ',' .. buckets[i][3] end
  local ttl = buckets[#buckets][2] + window - now
  if ttl < 1 then ttl = 1 end
  redis.call('SET', KEYS[1], table.concat(parts, ';'), 'PX', ttl)
end
return {allowed and 1 or 0, total, resetMs}
`;

export interface RedisRateLimiterOptions {
  windowMs: number;
  /** Prefix of every key this limiter writes (one deployment, or one test, per prefix). */
  keyPrefix: string;
  /** Clock in milliseconds; tests inject one. Default: Redis's own clock. */
  now?: () => number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #options: RedisRateLimiterOptions;
  readonly #bucketMs: number;
  #sha: string | undefined;

  /** `redis` stays the caller's: closing the limiter does not close it. */
  constructor(redis: Redis, options: RedisRateLimiterOptions) {
    if (!(options.windowMs > 0)) throw new RangeError('windowMs must be positive');
    this.#redis = redis;
    this.#options = options;
    this.#bucketMs = options.windowMs / BUCKETS_PER_WINDOW;
  }

  consume(key: string, limit: number): Promise<RateLimitState> {
    return this.#run(key, limit, true);
  }

  peek(key: string, limit: number): Promise<RateLimitState> {
    return this.#run(key, limit, false);
  }

  async close(): Promise<void> {}

  async #run(key: string, limit: number, count: boolean): Promise<RateLimitState> {
    const args = [
      this.#options.now === undefined ? '' : String(this.#options.now()),
      String(this.#options.windowMs),
      String(this.#bucketMs),
      String(Math.max(0, Math.floor(limit))),
      count ? '1' : '0',
    ];
    const redisKey = `${this.#options.keyPrefix}ratelimit:${key}`;
    const [allowed, total, resetMs] = (await this.#eval(redisKey, args)) as [number, number, number];
    return {
      allowed: allowed === 1,
      limit,
      remaining: allowed === 1 ? Math.max(0, limit - total) : 0,
      resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    };
  }

  /** EVALSHA, loading the script once per connection (after a Redis restart it loads again). */
  async #eval(key: string, args: string[]): Promise<unknown> {
    this.#sha ??= (await this.#redis.script('LOAD', SCRIPT)) as string;
    try {
      return await this.#redis.evalsha(this.#sha, 1, key, ...args);
    } catch (error) {
      if (!String(error).includes('NOSCRIPT')) throw error;
      this.#sha = (await this.#redis.script('LOAD', SCRIPT)) as string;
      return this.#redis.evalsha(this.#sha, 1, key, ...args);
    }
  }
}
