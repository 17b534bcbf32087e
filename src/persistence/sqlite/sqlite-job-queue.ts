/**
 * The embedded queue: a table next to the job records, so work accepted before a crash is still
 * there after it. One process owns a data directory, so at start every row a dead process had
 * claimed goes back to waiting. Workers are woken in-process on enqueue; a slow poll is the safety net.
 *
 * Its bookkeeping (claim, delete, hand back) runs from timers and promise callbacks, where a throw
 * would end the process. So a write that fails (a full disk or database: "database or disk is full")
 * is logged and retried at the next poll, and an outcome that could not be recorded is kept in
 * memory until it can: accepted jobs are kept and run once space is back.
 */
import type { JobHandler, JobQueue } from '../../jobs/job-queue.ts';
import type { Database } from './database.ts';

interface Active {
  controller: AbortController;
  done: Promise<void>;
}

type Outcome = 'done' | 'handed-back';

export interface QueueLogger {
  error(object: object, message: string): void;
  info(object: object, message: string): void;
}

export interface SqliteJobQueueOptions {
  /** Safety-net poll, and the pace of retries while bookkeeping fails (default 1 s). */
  pollMs?: number;
  /** How long a job handed back by its handler waits before it runs again (default 5 s). */
  retryDelayMs?: number;
  logger?: QueueLogger;
}

export class SqliteJobQueue implements JobQueue {
  readonly capabilities = { distributed: false };
  readonly #db: Database;
  readonly #pollMs: number;
  readonly #retryDelayMs: number;
  readonly #logger: QueueLogger | undefined;
  readonly #active = new Map<string, Active>();
  /** Outcomes of finished handlers that the database could not record yet (their rows stay 'active'). */
  readonly #unrecorded = new Map<string, Outcome>();
  #handler: JobHandler | undefined;
  #concurrency = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;
  #resetPending = false;
  #failing = false;

  constructor(db: Database, options: SqliteJobQueueOptions = {}) {
    this.#db = db;
    this.#pollMs = options.pollMs ?? 1000;
    this.#retryDelayMs = options.retryDelayMs ?? 5000;
    this.#logger = options.logger;
  }

  async enqueue(jobId: string): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO queue (job_id, state, available_at) VALUES (?, 'waiting', ?) ON CONFLICT(job_id) DO NOTHING`,
      )
      .run(jobId, Date.now());
    queueMicrotask(() => this.#pump());
  }

  start(handler: JobHandler, concurrency: number): void {
    this.#handler = handler;
    this.#concurrency = concurrency;
    this.#stopping = false;
    // Done by the first pump, so a database that is full at start delays the reset instead of failing it.
    this.#resetPending = true;
    this.#timer = setInterval(() => this.#pump(), this.#pollMs);
    this.#timer.unref();
    this.#pump();
  }

  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    const running = [...this.#active.values()];
    const finished = Promise.allSettled(running.map((a) => a.done));
    const timedOut = await Promise.race([
      finished.then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), graceMs).unref()),
    ]);
    if (timedOut) {
      for (const active of this.#active.values()) active.controller.abort(new Error('shutting down'));
      await finished;
    }
  }

  async size(): Promise<number> {
    const row = this.#db.prepare('SELECT COUNT(*) AS n FROM queue').get() as { n: number };
    return row.n;
  }

  #claim(): string | undefined {
    // all(), not get(): get() stops after the first row and drops the error of the commit that
    // follows, so on a full disk it returned a job id whose row was never marked active, and the
    // next pump claimed (and ran) the same job again.
    const rows = this.#db
      .prepare(
        `UPDATE queue SET state = 'active' WHERE seq = (
           SELECT seq FROM queue WHERE state = 'waiting' AND available_at <= ? ORDER BY available_at, seq LIMIT 1
         ) RETURNING job_id`,
      )
      .all(Date.now()) as { job_id: string }[];
    return rows[0]?.job_id;
  }

  /** Never throws: it runs from timers, microtasks and promise callbacks. */
  #pump(): void {
    try {
      if (this.#resetPending) {
        // Rows a dead process had claimed; before any claim of ours, which this would undo.
        this.#db.prepare(`UPDATE queue SET state = 'waiting' WHERE state = 'active'`).run();
        this.#resetPending = false;
      }
      for (const [jobId, outcome] of this.#unrecorded) {
        this.#record(jobId, outcome);
        this.#unrecorded.delete(jobId);
      }
      while (!this.#stopping && this.#handler && this.#active.size < this.#concurrency) {
        const jobId = this.#claim();
        if (jobId === undefined) break;
        this.#run(jobId, this.#handler);
      }
      if (this.#failing) this.#logger?.info({}, 'queue bookkeeping recovered');
      this.#failing = false;
    } catch (error) {
      // Logged once per outage, not at every poll.
      if (!this.#failing) this.#logger?.error({ err: error }, 'queue bookkeeping failed; retrying');
      this.#failing = true;
    }
  }

  #record(jobId: string, outcome: Outcome): void {
    if (outcome === 'done') {
      this.#db.prepare('DELETE FROM queue WHERE job_id = ?').run(jobId);
      return;
    }
    // Handed back while running: it waits `retryDelayMs` (a full disk is not fixed at once); on
    // shutdown it is due at once, for the next start.
    const availableAt = Date.now() + (this.#stopping ? 0 : this.#retryDelayMs);
    this.#db
      .prepare(`UPDATE queue SET state = 'waiting', available_at = ? WHERE job_id = ?`)
      .run(availableAt, jobId);
  }

  #run(jobId: string, handler: JobHandler): void {
    const controller = new AbortController();
    const done = handler(jobId, controller.signal)
      // The handler records job failures itself; a rejection means it was interrupted (shutdown)
      // or could not go on (storage full), so the job goes back to the queue.
      .then(
        (): Outcome => 'done',
        (): Outcome => 'handed-back',
      )
      .then((outcome) => {
        this.#active.delete(jobId);
        try {
          this.#record(jobId, outcome);
        } catch (error) {
          this.#unrecorded.set(jobId, outcome);
          this.#logger?.error(
            { err: error, jobId, outcome },
            'queue could not record a job outcome; retrying',
          );
        }
        this.#pump();
      });
    this.#active.set(jobId, { controller, done });
  }
}
