/**
 * The scaled-out queue: BullMQ on Redis, shared by every worker process. BullMQ gives what the embedded
 * queue's table does across machines: a job id is queued once while it waits (its id is the BullMQ job
 * id), a handler that rejects hands the job back for a retry after `retryDelayMs` (the job's own attempt
 * count lives in the job store; the queue retries without limit), and a worker that dies holding a job
 * stops renewing its lock, so BullMQ's stalled-job check gives the job to another worker once the lock
 * expires. A graceful stop gives running handlers `graceMs`, then aborts them and moves their jobs back to
 * waiting at once.
 */
import { type Job as BullJob, type ConnectionOptions, Queue, Worker } from 'bullmq';
import type { JobHandler, JobQueue } from './job-queue.ts';

export interface BullMqJobQueueOptions {
  /** Redis connection settings; BullMQ opens its own connections (a worker blocks one). */
  connection: ConnectionOptions;
  /** Redis key prefix of every deployment's queue keys. */
  prefix: string;
  /** Queue name (one per kind of work, so a flood of one kind cannot starve another). */
  name: string;
  /** Delay before a job handed back by its handler runs again. */
  retryDelayMs: number;
  /** How long a worker's claim lasts without renewal: a dead worker's jobs run again after this. */
  lockMs?: number;
}

const FOREVER = Number.MAX_SAFE_INTEGER;

export class BullMqJobQueue implements JobQueue {
  readonly capabilities = { distributed: true };
  readonly #options: BullMqJobQueueOptions;
  readonly #queue: Queue;
  #worker: Worker | undefined;
  /** Running handlers: aborted (and their jobs moved back) when a stop's grace runs out. */
  readonly #running = new Map<string, { controller: AbortController; done: Promise<unknown> }>();

  constructor(options: BullMqJobQueueOptions) {
    this.#options = options;
    this.#queue = new Queue(options.name, { connection: options.connection, prefix: options.prefix });
  }

  async enqueue(jobId: string): Promise<void> {
    await this.#queue.add(
      'job',
      {},
      {
        jobId,
        attempts: FOREVER,
        backoff: { type: 'fixed', delay: this.#options.retryDelayMs },
        // Outcomes live in the job store; the queue keeps nothing once a job is done with.
        removeOnComplete: true,
        removeOnFail: true,
      },
    );
  }

  start(handler: JobHandler, concurrency: number): void {
    if (this.#worker !== undefined) return;
    const lockMs = this.#options.lockMs ?? 30_000;
    this.#worker = new Worker(
      this.#options.name,
      async (job: BullJob) => {
        const id = job.id ?? '';
        const controller = new AbortController();
        const done = handler(id, controller.signal);
        this.#running.set(id, { controller, done });
        try {
          await done;
        } finally {
          this.#running.delete(id);
        }
      },
      {
        connection: this.#options.connection,
        prefix: this.#options.prefix,
        concurrency,
        lockDuration: lockMs,
        stalledInterval: Math.max(1000, Math.floor(lockMs / 2)),
        // A job that stalls (its worker died) is retried however often that happens: attempts are the job store's.
        maxStalledCount: FOREVER,
        autorun: true,
      },
    );
    // Connection trouble is retried by ioredis; an error event without a listener would end the process.
    this.#worker.on('error', () => {});
  }

  async stop(graceMs: number): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    // Take no new work, let running handlers finish within the grace, then abort the rest.
    const closing = worker.close();
    const running = [...this.#running.values()];
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(running.map((r) => r.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    for (const { controller } of this.#running.values()) controller.abort(new Error('the queue is stopping'));
    await closing;
  }

  async size(): Promise<number> {
    const counts = await this.#queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  /**
   * Lets go of everything without handing anything back, as a process that dies does: running jobs keep
   * their claims until the lock expires, then another worker's stalled-job check runs them. For a process
   * that must exit at once, and for the tests that play a crash.
   */
  async abandon(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#running.clear();
    await worker?.close(true);
    await this.#queue.close();
  }

  /** Closes the queue's own connection (after `stop`). */
  async close(): Promise<void> {
    await this.#queue.close();
  }
}
