/**
 * The scaled-out queue: BullMQ on Redis, shared by every worker process. BullMQ gives what the embedded
 * queue's table does across machines: a job id is queued once while it waits (its id is the BullMQ job
 * id), a handler that rejects hands the job back for a retry after `retryDelayMs` (the job's own attempt
 * count lives in the job store; the queue retries without limit). Crash recovery and the graceful stop
 * are `BullMqWorkers`'.
 */
import { type ConnectionOptions, Queue } from 'bullmq';
import { BullMqWorkers } from './bullmq-workers.ts';
import type { EnqueueOptions, JobHandler, JobLane, JobQueue, LaneStats } from './job-queue.ts';

export interface BullMqJobQueueOptions {
  /** Redis connection settings; BullMQ opens its own connections (a worker blocks one). */
  connection: ConnectionOptions;
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

export class BullMqJobQueue implements JobQueue {
  readonly capabilities = { distributed: true };
  readonly #options: BullMqJobQueueOptions;
  readonly #queues: Record<JobLane, Queue>;
  readonly #workers = new BullMqWorkers();

  constructor(options: BullMqJobQueueOptions) {
    this.#options = options;
    // Commands that are not blocking fail at once while Redis is away (the workers' blocking connections
    // wait for it): an upload that cannot be queued is answered with an error and readiness turns 503,
    // where queued commands would hang the request and the probe until Redis came back.
    const connection = { ...options.connection, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
    const queue = (lane: JobLane) =>
      new Queue(queueName(options.name, lane), { connection, prefix: options.prefix });
    this.#queues = { standard: queue('standard'), media: queue('media') };
  }

  async enqueue(jobId: string, options: EnqueueOptions = {}): Promise<void> {
    await this.#queues[options.lane ?? 'standard'].add(
      'job',
      {},
      {
        jobId,
        // Every job has a priority (1 = first): BullMQ takes unprioritised jobs before prioritised ones.
        priority: options.urgent ? 1 : 2,
        attempts: FOREVER,
        backoff: { type: 'fixed', delay: this.#options.retryDelayMs },
        // Outcomes live in the job store; the queue keeps nothing once a job is done with.
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
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
      this.#workers.run(queueName(this.#options.name, lane), (job, signal) => handler(job.id ?? '', signal), {
        connection: this.#options.connection,
        prefix: this.#options.prefix,
        concurrency: size,
        lockMs: this.#options.lockMs ?? 30_000,
        onError: this.#options.onError,
      });
    }
  }

  async stop(graceMs: number): Promise<void> {
    await this.#workers.stop(graceMs);
  }

  async size(): Promise<number> {
    let total = 0;
    for (const queue of Object.values(this.#queues)) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      total += Object.values(counts).reduce((sum, n) => sum + n, 0);
    }
    return total;
  }

  async stats(): Promise<LaneStats[]> {
    const now = Date.now();
    const result: LaneStats[] = [];
    for (const lane of ['standard', 'media'] as const) {
      const queue = this.#queues[lane];
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      // The first hundred waiting jobs are enough to find the oldest in practice: the rest came later.
      const waiting = await queue.getJobs(['prioritized', 'waiting'], 0, 99, true);
      const oldest = Math.min(...waiting.map((job) => job.timestamp));
      result.push({
        lane,
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0),
        running: counts.active ?? 0,
        oldestWaitingSeconds: Number.isFinite(oldest) ? Math.max(0, (now - oldest) / 1000) : 0,
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
    await this.#workers.abandon();
    await this.close();
  }

  /** Closes the queue's own connection (after `stop`). */
  async close(): Promise<void> {
    await Promise.all(Object.values(this.#queues).map((queue) => queue.close()));
  }
}

function queueName(name: string, lane: JobLane): string {
  return lane === 'standard' ? name : `${name}-${lane}`;
}
