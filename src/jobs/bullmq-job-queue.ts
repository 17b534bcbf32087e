/**
 * The scaled-out queue: BullMQ on Redis, shared by every worker process. BullMQ gives what the embedded
 * queue's table does across machines: a job id is queued once while it waits (its id is the BullMQ job
 * id), a handler that rejects hands the job back for a retry after `retryDelayMs` (the job's own attempt
 * count lives in the job store; the queue retries without limit), and a worker that dies holding a job
 * stops renewing its lock, so BullMQ's stalled-job check gives the job to another worker once the lock
 * expires. A graceful stop gives running handlers `graceMs`, then aborts them and moves their jobs back to
 * waiting at once.
 */
import { type Job as BullJob, type ConnectionOptions, Queue, WaitingError, Worker } from 'bullmq';
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
/** How long aborted handlers get to settle before a stop stops waiting for them. */
const ABORT_WAIT_MS = 2000;

export class BullMqJobQueue implements JobQueue {
  readonly capabilities = { distributed: true };
  readonly #options: BullMqJobQueueOptions;
  readonly #queues: Record<JobLane, Queue>;
  #workers: Worker[] = [];
  /**
   * Running handlers, one entry per run (a job whose lock was lost can run twice here): aborted, and their
   * jobs moved back, when a stop's grace runs out.
   */
  readonly #running = new Set<{ controller: AbortController; done: Promise<unknown> }>();
  #stopping = false;

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
    if (this.#workers.length > 0) return;
    this.#stopping = false;
    const lanes: [JobLane, number][] = [
      ['standard', concurrency],
      ['media', mediaConcurrency],
    ];
    // A lane without workers is left to other processes.
    this.#workers = lanes
      .filter(([, size]) => size > 0)
      .map(([lane, size]) => this.#worker(lane, handler, size));
  }

  #worker(lane: JobLane, handler: JobHandler, concurrency: number): Worker {
    const lockMs = this.#options.lockMs ?? 30_000;
    const worker = new Worker(
      queueName(this.#options.name, lane),
      async (job: BullJob, token?: string) => {
        // A paused worker may still take the one job its blocking fetch was waiting for: give it back.
        if (this.#stopping && token !== undefined) {
          await job.moveToWait(token);
          throw new WaitingError();
        }
        const controller = new AbortController();
        const run = { controller, done: handler(job.id ?? '', controller.signal) };
        this.#running.add(run);
        try {
          await run.done;
        } catch (error) {
          // Aborted by a stop: back to waiting at once, without the retry delay of a failed run (BullMQ
          // takes a WaitingError as "the processor moved the job itself").
          if (this.#stopping && controller.signal.aborted && token !== undefined) {
            await job.moveToWait(token);
            throw new WaitingError();
          }
          throw error;
        } finally {
          this.#running.delete(run);
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
    worker.on('error', (error) => this.#options.onError?.(error));
    return worker;
  }

  async stop(graceMs: number): Promise<void> {
    const workers = this.#workers;
    if (workers.length === 0) return;
    this.#workers = [];
    this.#stopping = true;
    // Take no new work (running handlers carry on, their locks still renewed), let them finish within the
    // grace, then abort the rest. A worker is closed once only: BullMQ's close() returns the close already
    // under way, so a forced close after a plain one would still wait for every running handler.
    await Promise.all(workers.map((worker) => worker.pause(true)));
    const running = [...this.#running];
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(running.map((r) => r.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    const left = [...this.#running];
    for (const { controller } of left) controller.abort(new Error('the queue is stopping'));
    // An aborted handler rejects and its job goes back to waiting. One that ignores the abort must not hold
    // the process: after a last short wait the workers close without waiting, and such a job's lock
    // expires, so another worker takes it (as after a crash).
    const settled = await Promise.race([
      Promise.allSettled(left.map((r) => r.done)).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ABORT_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    await Promise.all(workers.map((worker) => worker.close(!settled)));
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
    const workers = this.#workers;
    this.#workers = [];
    this.#running.clear();
    await Promise.all(workers.map((worker) => worker.close(true)));
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
