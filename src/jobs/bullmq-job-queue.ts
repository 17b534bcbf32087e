/**
 * The scaled-out queue: BullMQ on Redis, shared by every worker process. BullMQ gives what the embedded
 * queue's table does across machines: durable work, a lock renewed while it runs, a run handed back for a
 * retry after `retryDelayMs` when its handler rejects (the job's own attempt count lives in the job store;
 * the queue retries without limit). Each BullMQ job is a turn, and which job a turn runs is chosen fairly
 * between accounts when it starts (redis-turns.ts). Crash recovery and the graceful stop are `BullMqWorkers'`.
 */
import { Queue, type RedisOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { BullMqWorkers } from './bullmq-workers.ts';
import type { EnqueueOptions, JobHandler, JobLane, JobQueue, LaneStats } from './job-queue.ts';
import { RedisTurns } from './redis-turns.ts';

export interface BullMqJobQueueOptions {
  /** Redis connection settings; BullMQ opens its own connections (a worker blocks one), the turns one more. */
  connection: RedisOptions;
  /** Redis key prefix of every deployment's queue keys. */
  prefix: string;
  /** Queue name; each lane is a BullMQ queue of its own (`<name>` and `<name>-media`) with its own workers. */
  name: string;
  /** Delay before a job handed back by its handler runs again. */
  retryDelayMs: number;
  /** How long a worker's claim lasts without renewal: a dead worker's jobs run again after this. */
  lockMs?: number;
  /** Told of the workers' Redis errors (lost locks, failed moves); ioredis reconnects by itself. */
  onError?: (error: Error) => void;
}

const FOREVER = Number.MAX_SAFE_INTEGER;

/** Marks a BullMQ job as a turn; a job without it was queued by an earlier version, as the job itself. */
interface TurnData {
  turn?: 1;
}

export class BullMqJobQueue implements JobQueue {
  readonly capabilities = { distributed: true };
  readonly #options: BullMqJobQueueOptions;
  readonly #queues: Record<JobLane, Queue>;
  readonly #redis: Redis;
  readonly #turns: Record<JobLane, RedisTurns>;
  readonly #workers = new BullMqWorkers();
  #topUps: NodeJS.Timeout[] = [];

  constructor(options: BullMqJobQueueOptions) {
    this.#options = options;
    // Commands that are not blocking fail at once while Redis is away (the workers' blocking connections
    // wait for it): an upload that cannot be queued is answered with an error and readiness turns 503,
    // where queued commands would hang the request and the probe until Redis came back.
    const connection = { ...options.connection, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
    const queue = (lane: JobLane) =>
      new Queue(queueName(options.name, lane), { connection, prefix: options.prefix });
    this.#queues = { standard: queue('standard'), media: queue('media') };
    const turnsConnection = RedisTurns.connect(options.connection);
    this.#redis = turnsConnection.redis;
    // An error event without a listener would end the process; the commands themselves reject.
    this.#redis.on('error', (error: Error) => options.onError?.(error));
    const turns = (lane: JobLane) =>
      new RedisTurns(turnsConnection, options.prefix, queueName(options.name, lane));
    this.#turns = { standard: turns('standard'), media: turns('media') };
  }

  /**
   * Records the job, then adds a turn for it: in that order, so the worker that takes the turn finds the job
   * (or an earlier one, fairly). A job already waiting or running gets no second turn.
   */
  async enqueue(jobId: string, options: EnqueueOptions = {}): Promise<void> {
    const lane = options.lane ?? 'standard';
    if (await this.#turns[lane].track(jobId, options.account ?? '', options.urgent === true)) {
      await this.#addTurns(lane, 1);
    }
  }

  async #addTurns(lane: JobLane, count: number): Promise<void> {
    const data: TurnData = { turn: 1 };
    const opts = {
      attempts: FOREVER,
      backoff: { type: 'fixed', delay: this.#options.retryDelayMs },
      // Outcomes live in the job store; the queue keeps nothing once a turn is done with.
      removeOnComplete: true,
      removeOnFail: true,
    };
    await this.#queues[lane].addBulk(Array.from({ length: count }, () => ({ name: 'turn', data, opts })));
  }

  /**
   * Adds the turns a process dying between recording a job and adding its turn left missing: jobs no turn
   * has claimed yet, less the turns waiting. The turns are counted first, so a claim between the two counts
   * lowers the jobs, not the turns; an enqueue between them, or a turn taken but not yet claiming, only adds a
   * turn that will find nothing to do.
   */
  async #topUp(lane: JobLane): Promise<void> {
    const counts = await this.#queues[lane].getJobCounts('waiting', 'prioritized');
    const waiting = Object.values(counts).reduce((sum, n) => sum + n, 0);
    const { unclaimed } = await this.#turns[lane].counts();
    if (unclaimed > waiting) await this.#addTurns(lane, unclaimed - waiting);
  }

  start(handler: JobHandler, concurrency: number, mediaConcurrency = 1): void {
    if (this.#workers.started) return;
    const lanes: [JobLane, number][] = [
      ['standard', concurrency],
      ['media', mediaConcurrency],
    ];
    // A lane without workers is left to other processes.
    for (const [lane, size] of lanes) {
      if (size <= 0) continue;
      const turns = this.#turns[lane];
      const topUp = () =>
        void this.#topUp(lane).catch((error: unknown) =>
          this.#options.onError?.(error instanceof Error ? error : new Error(String(error))),
        );
      // As often as a dead worker's jobs come back: a job short of its turn waits no longer than theirs.
      const timer = setInterval(topUp, Math.max(1000, this.#options.lockMs ?? 30_000));
      timer.unref();
      this.#topUps.push(timer);
      topUp();
      this.#workers.run(
        queueName(this.#options.name, lane),
        async (turn, signal) => {
          const turnId = turn.id ?? '';
          if ((turn.data as TurnData).turn !== 1) return handler(turnId, signal);
          const jobId = await turns.claim(turnId);
          if (jobId === undefined) return;
          // A rejection keeps the job bound to the turn: the turn's retry (or the next worker) runs it again.
          await handler(jobId, signal);
          await turns.finish(turnId, jobId);
        },
        {
          connection: this.#options.connection,
          prefix: this.#options.prefix,
          concurrency: size,
          lockMs: this.#options.lockMs ?? 30_000,
          onError: this.#options.onError,
        },
      );
    }
  }

  async stop(graceMs: number): Promise<void> {
    this.#stopTopUps();
    await this.#workers.stop(graceMs);
  }

  #stopTopUps(): void {
    for (const timer of this.#topUps.splice(0)) clearInterval(timer);
  }

  async size(): Promise<number> {
    let total = 0;
    for (const lane of ['standard', 'media'] as const) total += (await this.#turns[lane].counts()).jobs;
    return total;
  }

  async stats(): Promise<LaneStats[]> {
    const now = Date.now();
    const result: LaneStats[] = [];
    for (const lane of ['standard', 'media'] as const) {
      const { jobs, oldestWaitingSince } = await this.#turns[lane].counts();
      const running = await this.#queues[lane].getActiveCount();
      result.push({
        lane,
        // A job handed back for a retry waits too; read apart, the two counts may straddle a start.
        waiting: Math.max(0, jobs - running),
        running,
        oldestWaitingSeconds:
          oldestWaitingSince === undefined ? 0 : Math.max(0, (now - oldestWaitingSince) / 1000),
      });
    }
    return result;
  }

  /**
   * Lets go of everything without handing anything back, as a process that dies does: running jobs keep
   * their claims until the lock expires, then another worker's stalled-job check runs them. For a process
   * that must exit at once, and for the tests that play a crash.
   */
  async abandon(): Promise<void> {
    this.#stopTopUps();
    await this.#workers.abandon();
    await this.close();
  }

  /** Closes the queue's own connections (after `stop`). */
  async close(): Promise<void> {
    await Promise.all(Object.values(this.#queues).map((queue) => queue.close()));
    this.#redis.disconnect();
  }
}

function queueName(name: string, lane: JobLane): string {
  return lane === 'standard' ? name : `${name}-${lane}`;
}
