import type { JobHandler, JobQueue } from '../../jobs/job-queue.ts';
import type { Database } from './database.ts';

interface Active {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The embedded queue: a table next to the job records, so work accepted before a crash is still
 * there after it. One process owns a data directory, so at start every row a dead process had
 * claimed goes back to waiting. Workers are woken in-process on enqueue; a slow poll is the safety net.
 */
export class SqliteJobQueue implements JobQueue {
  readonly capabilities = { distributed: false };
  readonly #db: Database;
  readonly #pollMs: number;
  readonly #active = new Map<string, Active>();
  #handler: JobHandler | undefined;
  #concurrency = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;

  constructor(db: Database, options: { pollMs?: number } = {}) {
    this.#db = db;
    this.#pollMs = options.pollMs ?? 1000;
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
    this.#db.prepare(`UPDATE queue SET state = 'waiting' WHERE state = 'active'`).run();
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
    const row = this.#db
      .prepare(
        `UPDATE queue SET state = 'active' WHERE seq = (
           SELECT seq FROM queue WHERE state = 'waiting' AND available_at <= ? ORDER BY available_at, seq LIMIT 1
         ) RETURNING job_id`,
      )
      .get(Date.now()) as { job_id: string } | undefined;
    return row?.job_id;
  }

  #pump(): void {
    while (!this.#stopping && this.#handler && this.#active.size < this.#concurrency) {
      const jobId = this.#claim();
      if (jobId === undefined) return;
      this.#run(jobId, this.#handler);
    }
  }

  #run(jobId: string, handler: JobHandler): void {
    const controller = new AbortController();
    const done = handler(jobId, controller.signal)
      .then(
        () => this.#db.prepare('DELETE FROM queue WHERE job_id = ?').run(jobId),
        // The handler records job failures itself; reaching here means it was interrupted
        // (shutdown), so the job goes back to the queue for the next start.
        () => this.#db.prepare(`UPDATE queue SET state = 'waiting' WHERE job_id = ?`).run(jobId),
      )
      .finally(() => {
        this.#active.delete(jobId);
        this.#pump();
      });
    this.#active.set(jobId, { controller, done: done.then(() => undefined) });
  }
}
