/**
 * Fair sharing for the scaled queue, which BullMQ's open-source queue does not give (its groups are BullMQ
 * Pro's): BullMQ takes work in the order it was added, so one account's flood would hold every other
 * account's job behind it. Here BullMQ carries *turns*, not jobs: every enqueue records the job in Redis, per
 * account, and adds one turn to the lane's BullMQ queue. A worker that takes a turn asks Redis which job
 * to run in it (`claim`, one Lua script, so atomic across every process): the account served longest ago
 * that has a job waiting, its urgent jobs first, then its oldest. That is the embedded queue's rule
 * (jobs/job-queue.ts, EnqueueOptions), decided when a job starts, so it holds however many processes take
 * turns.
 *
 * BullMQ still gives everything else: a turn is durable once added, its lock is renewed while the job runs,
 * and a turn whose worker died or stopped goes back to waiting. The job a turn claimed stays bound to it
 * (`assigned`), so the turn's next run, wherever it happens, runs the same job. Turns and jobs pair up
 * without being named for each other: each enqueue records its job, then adds one turn (recorded first, so
 * the turn can never come before its job, which a worker taking it at once would otherwise find missing).
 * A process dying between the two leaves a job short of a turn: workers count waiting jobs against waiting
 * turns now and then and add what is missing (`BullMqJobQueue`). A turn that finds no job does nothing.
 *
 * Keys, under `<prefix>:turns:<queue>`: `:jobs` (hash job → account: waiting or running, so an id is queued
 * once), `:urgent:<account>` and `:background:<account>` (lists of waiting job ids), `:ready` (sorted set of
 * the accounts with waiting jobs, in the order their turns come: an account served goes last, scored with the
 * next `:seq`; an account arriving goes last too, scored between the two), `:assigned` (hash turn →
 * job), `:since` (sorted set of waiting jobs by the time they were queued). The per-account keys are named
 * inside the scripts: this needs one Redis, not a cluster.
 */
import { Redis, type RedisOptions } from 'ioredis';

/** KEYS none; ARGV: base, job id, account, 1 if urgent, now (ms). Returns 1 if recorded, 0 if already there. */
const TRACK = `
local base, jobId, account = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HSETNX', base .. ':jobs', jobId, account) == 0 then return 0 end
redis.call('ZADD', base .. ':since', ARGV[5], jobId)
redis.call('RPUSH', base .. (ARGV[4] == '1' and ':urgent:' or ':background:') .. account, jobId)
-- Last: after the account served last (scored :seq), before whichever is served next (:seq + 1).
local last = tonumber(redis.call('GET', base .. ':seq') or '0')
redis.call('ZADD', base .. ':ready', 'NX', last + 0.5, account)
return 1
`;

/**
 * ARGV: base, turn id. Returns the job the turn runs: the one it already holds (a turn run again after a
 * crash, a stop or a hand-back), else the next by the fair rule, or nil when no job waits.
 */
const CLAIM = `
local base, turn = ARGV[1], ARGV[2]
local held = redis.call('HGET', base .. ':assigned', turn)
if held then return held end
local first = redis.call('ZRANGE', base .. ':ready', 0, 0)
if #first == 0 then return false end
local account = first[1]
local urgent, background = base .. ':urgent:' .. account, base .. ':background:' .. account
local jobId = redis.call('LPOP', urgent) or redis.call('LPOP', background)
-- Counted even when the account leaves: queueing again, it must come after those already waiting.
local seq = redis.call('INCR', base .. ':seq')
if redis.call('EXISTS', urgent) == 1 or redis.call('EXISTS', background) == 1 then
  redis.call('ZADD', base .. ':ready', seq, account)
else
  redis.call('ZREM', base .. ':ready', account)
end
if not jobId then return false end
redis.call('HSET', base .. ':assigned', turn, jobId)
redis.call('ZREM', base .. ':since', jobId)
return jobId
`;

/** ARGV: base, turn id, job id. The job is done with: the turn lets it go and the id may be queued again. */
const FINISH = `
local base = ARGV[1]
if redis.call('HGET', base .. ':assigned', ARGV[2]) == ARGV[3] then
  redis.call('HDEL', base .. ':assigned', ARGV[2])
end
redis.call('HDEL', base .. ':jobs', ARGV[3])
return 1
`;

/**
 * ARGV: base. Returns {jobs waiting or running, jobs no turn has claimed yet, the time the oldest of those
 * was queued or nil}.
 */
const COUNTS = `
local base = ARGV[1]
local oldest = redis.call('ZRANGE', base .. ':since', 0, 0, 'WITHSCORES')
return {redis.call('HLEN', base .. ':jobs'), redis.call('ZCARD', base .. ':since'), oldest[2] or false}
`;

export interface TurnCounts {
  /** Jobs recorded and not done with: waiting, running, or handed back for a retry. */
  jobs: number;
  /** Jobs waiting for a turn to claim them. */
  unclaimed: number;
  /** When the oldest job no turn has claimed yet was queued (ms); undefined when none waits. */
  oldestWaitingSince: number | undefined;
}

/** The fair choice of jobs for the turns of one BullMQ queue (one lane). */
export interface TurnsConnection {
  redis: Redis;
  /** Settles once the first connection is made or has failed; commands wait for it, then fail at once. */
  ready: Promise<void>;
}

export class RedisTurns {
  readonly #connection: TurnsConnection;
  readonly #base: string;
  readonly #shas = new Map<string, string>();

  /** `connection` is shared by every lane and stays the caller's. */
  constructor(connection: TurnsConnection, prefix: string, queueName: string) {
    this.#connection = connection;
    this.#base = `${prefix}:turns:${queueName}`;
  }

  /**
   * A connection for the turns' scripts. Once up, its commands fail at once while Redis is away, as the
   * queue's own commands do (no offline queue); the first ones wait for it to come up.
   */
  static connect(connection: RedisOptions): TurnsConnection {
    const redis = new Redis({
      ...connection,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    // ioredis keeps reconnecting after a failed first attempt; the commands meanwhile reject.
    return { redis, ready: redis.connect().catch(() => {}) };
  }

  /** Records a job as waiting for a turn; false when it is already waiting or running. */
  async track(jobId: string, account: string, urgent: boolean): Promise<boolean> {
    const args = [jobId, account, urgent ? '1' : '0', String(Date.now())];
    return (await this.#run(TRACK, args)) === 1;
  }

  /** The job the turn `turnId` runs, or undefined when there is none. */
  async claim(turnId: string): Promise<string | undefined> {
    const jobId = await this.#run(CLAIM, [turnId]);
    return typeof jobId === 'string' ? jobId : undefined;
  }

  async finish(turnId: string, jobId: string): Promise<void> {
    await this.#run(FINISH, [turnId, jobId]);
  }

  async counts(): Promise<TurnCounts> {
    const [jobs, unclaimed, oldest] = (await this.#run(COUNTS, [])) as [number, number, string | null];
    return { jobs, unclaimed, oldestWaitingSince: oldest === null ? undefined : Number(oldest) };
  }

  /** EVALSHA, loading the script once (and again after a Redis restart forgot it). */
  async #run(script: string, args: string[]): Promise<unknown> {
    await this.#connection.ready;
    const { redis } = this.#connection;
    const argv = [this.#base, ...args];
    const cached = this.#shas.get(script);
    try {
      return await redis.evalsha(cached ?? (await this.#load(script)), 0, ...argv);
    } catch (error) {
      if (cached === undefined || !String(error).includes('NOSCRIPT')) throw error;
      return redis.evalsha(await this.#load(script), 0, ...argv);
    }
  }

  async #load(script: string): Promise<string> {
    const sha = (await this.#connection.redis.script('LOAD', script)) as string;
    this.#shas.set(script, sha);
    return sha;
  }
}
