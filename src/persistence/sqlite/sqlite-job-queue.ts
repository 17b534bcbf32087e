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
import { all, type Database, get, run, transaction } from './database.ts';

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
    const lane = options.lane ?? 'standard';
    const account = options.account ?? '';
    transaction(this.#db, () => {
      run(
        this.#db,
        `INSERT INTO queue (job_id, state, available_at, lane, priority, account) VALUES (?, 'waiting', ?, ?, ?, ?)
           ON CONFLICT(job_id) DO NOTHING`,
        jobId,
        Date.now(),
        lane,
        options.urgent ? 0 : 1,
        account,
      );
      // An account new to the lane's turns takes the last place, beside the account served last (rowid
      // puts it after); one already there keeps its place.
      run(
        this.#db,
        `INSERT OR IGNORE INTO queue_turns (lane, account, served)
           VALUES (?, ?, (SELECT COALESCE(MAX(served), 0) FROM queue_turns WHERE lane = ?))`,
        lane,
        account,
        lane,
      );
    });
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

  /**
   * The next due job of the lane, marked active: the accounts with due work take turns (the one served
   * longest ago first, see EnqueueOptions), and within the account whose turn it is, urgent jobs first, then
   * the oldest. One at a time, in one transaction, so the turn moves on with every start: the account served
   * goes to the last place.
   */
  #claim(lane: JobLane): string[] {
    return transaction(this.#db, () => {
      const now = Date.now();
      // Only accounts with jobs in the lane have a row (see #record), each checked by one index seek: the walk
      // stops at the first with due work.
      const turn = get<{ account: string }>(
        this.#db,
        `SELECT account FROM queue_turns t WHERE lane = ? AND EXISTS (
           SELECT 1 FROM queue q INDEXED BY queue_account_waiting
           WHERE q.lane = t.lane AND q.state = 'waiting' AND q.account = t.account AND q.available_at <= ?
         ) ORDER BY served, rowid LIMIT 1`,
        lane,
        now,
      );
      if (turn === undefined) return [];
      // Inside the transaction (BEGIN IMMEDIATE), so a full disk fails the COMMIT, not silently (see `all`).
      const rows = all<{ job_id: string }>(
        this.#db,
        `UPDATE queue SET state = 'active' WHERE seq = (
           SELECT seq FROM queue WHERE lane = ? AND state = 'waiting' AND account = ? AND available_at <= ?
           ORDER BY priority, available_at, seq LIMIT 1
         ) RETURNING job_id`,
        lane,
        turn.account,
        now,
      );
      run(
        this.#db,
        `UPDATE queue_turns SET served = (SELECT MAX(served) + 1 FROM queue_turns WHERE lane = ?)
           WHERE lane = ? AND account = ?`,
        lane,
        lane,
        turn.account,
      );
      return rows.map((row) => row.job_id);
    });
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
      transaction(this.#db, () => {
        const [row] = all<{ lane: JobLane; account: string }>(
          this.#db,
          'DELETE FROM queue WHERE job_id = ? RETURNING lane, account',
          jobId,
        );
        // An account leaves the turns with its last job, so the claim's walk stays short; it comes back last.
        if (row === undefined) return;
        run(
          this.#db,
          `DELETE FROM queue_turns WHERE lane = ? AND account = ?
             AND NOT EXISTS (
               SELECT 1 FROM queue INDEXED BY queue_account_waiting
               WHERE lane = ? AND state IN ('waiting', 'active') AND account = ?
             )`,
          row.lane,
          row.account,
          row.lane,
          row.account,
        );
      });
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
