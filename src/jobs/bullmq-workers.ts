/**
 * The BullMQ workers of one process, with the lifecycle every Presso queue on Redis needs, written once
 * (the job queue and the webhook deliveries both run on it):
 * - a worker that dies holding a job stops renewing its lock, so BullMQ's stalled-job check gives the job to
 *   another worker once the lock expires; a job stalls again however often that happens;
 * - a graceful stop takes no new work, gives running handlers `graceMs`, then aborts them and moves their
 *   jobs back to waiting at once (not after a retry delay);
 * - `abandon()` lets go as a crashed process does, for a process that must exit now and for tests.
 */
import { type Job as BullJob, type ConnectionOptions, WaitingError, Worker } from 'bullmq';

/** Runs one BullMQ job; `signal` aborts when a stop's grace runs out. A rejection fails the run (BullMQ retries). */
export type BullMqHandler = (job: BullJob, signal: AbortSignal) => Promise<void>;

export interface BullMqWorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  concurrency: number;
  /** How long a worker's claim lasts without renewal: a dead worker's jobs run again after this. */
  lockMs: number;
  /** Told of the workers' Redis errors (lost locks, failed moves); ioredis reconnects by itself. */
  onError?: ((error: Error) => void) | undefined;
}

const FOREVER = Number.MAX_SAFE_INTEGER;
/** How long aborted handlers get to settle before a stop stops waiting for them. */
const ABORT_WAIT_MS = 2000;

export class BullMqWorkers {
  #workers: Worker[] = [];
  /**
   * Running handlers, one entry per run (a job whose lock was lost can run twice here): aborted, and their
   * jobs moved back, when a stop's grace runs out.
   */
  readonly #running = new Set<{ controller: AbortController; done: Promise<unknown> }>();
  #stopping = false;

  /** True while workers run (between the first `run` and `stop` or `abandon`). */
  get started(): boolean {
    return this.#workers.length > 0;
  }

  /** Starts a worker taking jobs from the queue `queueName`. */
  run(queueName: string, handler: BullMqHandler, options: BullMqWorkerOptions): void {
    this.#stopping = false;
    const worker = new Worker(
      queueName,
      async (job: BullJob, token?: string) => {
        // A paused worker may still take the one job its blocking fetch was waiting for: give it back.
        if (this.#stopping && token !== undefined) {
          await job.moveToWait(token);
          throw new WaitingError();
        }
        const controller = new AbortController();
        const run = { controller, done: handler(job, controller.signal) };
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
        connection: options.connection,
        prefix: options.prefix,
        concurrency: options.concurrency,
        lockDuration: options.lockMs,
        stalledInterval: Math.max(1000, Math.floor(options.lockMs / 2)),
        // A job that stalls (its worker died) runs again however often that happens.
        maxStalledCount: FOREVER,
        autorun: true,
      },
    );
    // Connection trouble is retried by ioredis; an error event without a listener would end the process.
    worker.on('error', (error) => options.onError?.(error));
    this.#workers.push(worker);
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
    // An aborted handler settles and its job goes back to waiting. One that ignores the abort must not hold
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

  /**
   * Lets go of everything without handing anything back, as a process that dies does: running jobs keep
   * their claims until the lock expires, then another worker's stalled-job check runs them.
   */
  async abandon(): Promise<void> {
    const workers = this.#workers;
    this.#workers = [];
    this.#running.clear();
    await Promise.all(workers.map((worker) => worker.close(true)));
  }
}
