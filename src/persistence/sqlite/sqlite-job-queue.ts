/**
 * The embedded queue: a table next to the job records, so work accepted before a crash is still
 * there after it. One process owns a data directory, so at start every row a dead process had
 * claimed goes back to waiting. Workers are woken in-process on enqueue; a slow poll is the safety
 * net. The claim-and-run machinery (concurrency, kick, poll, graceful stop) is `WorkPool`'s.
 *
 * Its bookkeeping (claim, delete, hand back) runs from timers and promise callbacks, where a throw
 * would end the process. So a write that fails (a full disk or database: "database or disk is full")
 * is logged and retried at the next poll, and an outcome that could not be recorded is kept in
 * memory until it can: accepted jobs are kept and run once space is back.
 */
import type { Logger } from 'pino';
import type { EnqueueOptions, JobHandler, JobLane, JobQueue, LaneStats } from '../../jobs/job-queue.ts';
import { WorkPool } from '../../jobs/work-pool.ts';
import { all, type Database, get, run } from './database.ts';

type Outcome = 'done' | 'handed-back';

export interface SqliteJobQueueOptions {
  /** Safety-net poll, and the pace of retries while bookkeeping fails (default 1 s). */
  pollMs?: number;
  /** How long a job handed back by its handler waits before it runs again (default 5 s). */
  retryDelayMs?: number;
  logger?: Logger;
}

export class SqliteJobQueue implements JobQueue {
  readonly capabilities = { distributed: false };
  readonly #db: Database;
  readonly #pollMs: number;
  readonly #retryDelayMs: number;
  readonly #logger: Logger | undefined;
  /** Outcomes of finished handlers that the database could not record yet (their rows stay 'active'). */
  readonly #unrecorded = new Map<string, Outcome>();
  /** One pool per lane, each claiming only its lane's rows. */
  #pools: WorkPool<string>[] = [];
  #resetPending = false;
  #failing = false;

  constructor(db: Database, options: SqliteJobQueueOptions = {}) {
    this.#db = db;
    this.#pollMs = options.pollMs ?? 1000;
    this.#retryDelayMs = options.retryDelayMs ?? 5000;
    this.#logger = options.logger;
  }

  async enqueue(jobId: string, options: EnqueueOptions = {}): Promise<void> {
    run(
      this.#db,
      `INSERT INTO queue (job_id, state, available_at, lane, priority) VALUES (?, 'waiting', ?, ?, ?)
         ON CONFLICT(job_id) DO NOTHING`,
      jobId,
      Date.now(),
      options.lane ?? 'standard',
      options.urgent ? 0 : 1,
    );
    queueMicrotask(() => {
      for (const pool of this.#pools) pool.kick();
    });
  }

  get #running(): boolean {
    return this.#pools.some((pool) => pool.running);
  }

  start(handler: JobHandler, concurrency: number, mediaConcurrency = 1): void {
    if (this.#running) return;
    // Done by the first pump, so a database that is full at start delays the reset instead of failing it.
    this.#resetPending = true;
    const lanes: [JobLane, number][] = [
      ['standard', concurrency],
      ['media', mediaConcurrency],
    ];
    // A lane without workers is not served here (another process, or none: jobs wait).
    this.#pools = lanes
      .filter(([, size]) => size > 0)
      .map(([lane, size]) => this.#lanePool(handler, lane, size));
    for (const pool of this.#pools) pool.start();
  }

  #lanePool(handler: JobHandler, lane: JobLane, concurrency: number): WorkPool<string> {
    return new WorkPool<string>(
      {
        claim: () => this.#claim(lane),
        idOf: (jobId) => jobId,
        process: (jobId, signal) => this.#process(jobId, handler, signal),
        release: (jobIds) => {
          for (const jobId of jobIds)
            run(this.#db, `UPDATE queue SET state = 'waiting' WHERE job_id = ?`, jobId);
        },
        beforeClaims: () => this.#catchUp(),
        afterClaims: () => {
          if (this.#failing) this.#logger?.info({}, 'queue bookkeeping recovered');
          this.#failing = false;
        },
        onPumpError: (error) => {
          // Logged once per outage, not at every poll.
          if (!this.#failing) this.#logger?.error({ err: error }, 'queue bookkeeping failed; retrying');
          this.#failing = true;
        },
        onWorkError: (error, jobId) =>
          this.#logger?.error({ err: error, jobId }, 'queue failed to finish a job run'),
      },
      { concurrency, pollMs: this.#pollMs },
    );
  }

  async stop(graceMs: number): Promise<void> {
    if (this.#pools.length === 0) return;
    await Promise.all(this.#pools.map((pool) => pool.stop(graceMs)));
    // No pump runs any more: one last try to record outcomes a full disk held back, so the next
    // start does not run finished jobs again. Failing, their rows stay 'active' for that start's reset.
    try {
      this.#recordUnrecorded();
    } catch (error) {
      this.#logger?.error({ err: error }, 'queue could not record job outcomes before stopping');
    }
  }

  async size(): Promise<number> {
    return get<{ n: number }>(this.#db, 'SELECT COUNT(*) AS n FROM queue')?.n ?? 0;
  }

  async stats(): Promise<LaneStats[]> {
    const now = Date.now();
    const rows = all<{ lane: JobLane; waiting: number; running: number; oldest: number | null }>(
      this.#db,
      `SELECT lane, SUM(state = 'waiting') AS waiting, SUM(state = 'active') AS running,
         MIN(CASE WHEN state = 'waiting' THEN available_at END) AS oldest
       FROM queue GROUP BY lane`,
    );
    return (['standard', 'media'] as const).map((lane) => {
      const row = rows.find((r) => r.lane === lane);
      const oldest = row?.oldest ?? undefined;
      return {
        lane,
        waiting: row?.waiting ?? 0,
        running: row?.running ?? 0,
        oldestWaitingSeconds: oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000),
      };
    });
  }

  /** Bookkeeping that must come before any claim; throws (to the pool) while the database is full. */
  #catchUp(): void {
    if (this.#resetPending) {
      // Rows a dead process had claimed; before any claim of ours, which this would undo.
      run(this.#db, `UPDATE queue SET state = 'waiting' WHERE state = 'active'`);
      this.#resetPending = false;
    }
    this.#recordUnrecorded();
  }

  #recordUnrecorded(): void {
    for (const [jobId, outcome] of this.#unrecorded) {
      this.#record(jobId, outcome);
      this.#unrecorded.delete(jobId);
    }
  }

  /** The lane's oldest due job, marked active; one at a time, so jobs start in the order they became due. */
  #claim(lane: JobLane): string[] {
    // all() reads an UPDATE ... RETURNING (see `all` in database.ts): with get() a full disk
    // returned a job id whose row was never marked active, and the next pump ran the job again.
    const rows = all<{ job_id: string }>(
      this.#db,
      `UPDATE queue SET state = 'active' WHERE seq = (
         SELECT seq FROM queue WHERE lane = ? AND state = 'waiting' AND available_at <= ?
         ORDER BY priority, available_at, seq LIMIT 1
       ) RETURNING job_id`,
      lane,
      Date.now(),
    );
    return rows.map((row) => row.job_id);
  }

  /** Runs the handler and records its outcome; never rejects, so the pool only sees bookkeeping bugs. */
  async #process(jobId: string, handler: JobHandler, signal: AbortSignal): Promise<void> {
    let outcome: Outcome;
    try {
      await handler(jobId, signal);
      outcome = 'done';
    } catch {
      // The handler records job failures itself; a rejection means it was interrupted (shutdown)
      // or could not go on (storage full), so the job goes back to the queue.
      outcome = 'handed-back';
    }
    try {
      this.#record(jobId, outcome);
    } catch (error) {
      this.#unrecorded.set(jobId, outcome);
      this.#logger?.error({ err: error, jobId, outcome }, 'queue could not record a job outcome; retrying');
    }
  }

  #record(jobId: string, outcome: Outcome): void {
    if (outcome === 'done') {
      run(this.#db, 'DELETE FROM queue WHERE job_id = ?', jobId);
      return;
    }
    // Handed back while running: it waits `retryDelayMs` (a full disk is not fixed at once); on
    // shutdown it is due at once, for the next start.
    const availableAt = Date.now() + (this.#running ? this.#retryDelayMs : 0);
    run(
      this.#db,
      `UPDATE queue SET state = 'waiting', available_at = ? WHERE job_id = ?`,
      availableAt,
      jobId,
    );
  }
}
