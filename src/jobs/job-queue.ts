/**
 * The work queue. Embedded: a table in the SQLite database, so accepted work survives a crash;
 * scaled: BullMQ on Redis. A queue knows job ids and whose they are, never what a job does.
 */

/**
 * Resolves when the job is done with (completed or failed: the handler records which). Rejects to
 * hand the job back: it runs again after the queue's retry delay, or at the next start on shutdown.
 */
export type JobHandler = (jobId: string, signal: AbortSignal) => Promise<void>;

export interface QueueCapabilities {
  /** Workers in other processes can take the work (false for the embedded queue). */
  distributed: boolean;
}

/**
 * Lanes keep long work from holding every worker: video and audio jobs (minutes of encoding, and a wait
 * for their turn in the encode budget) run on the media lane's own workers, so images, PDFs and archives
 * keep flowing on the standard lane however many videos are queued.
 */
export type JobLane = 'standard' | 'media';

/**
 * Fair sharing: in each lane, the accounts that have waiting work take turns, one job each, the account
 * served longest ago first. So once an account has a job waiting, at most one job of each other account with
 * waiting work starts before it, however much those accounts queued (counted in job starts across every
 * process taking work from the queue). Within an account, urgent jobs go first, then the oldest.
 */
export interface EnqueueOptions {
  /** Default `standard`. */
  lane?: JobLane;
  /**
   * A client is waiting for the answer (a synchronous request): taken before the account's own queued
   * background work. It does not jump other accounts' turns.
   */
  urgent?: boolean;
  /** Whose job it is: the unit that takes turns. Default: one shared account (``). */
  account?: string;
}

/** One lane's backlog, for metrics: what waits, what runs, and how long the oldest waiting job has waited. */
export interface LaneStats {
  lane: JobLane;
  waiting: number;
  running: number;
  /** 0 when nothing waits. */
  oldestWaitingSeconds: number;
}

export interface JobQueue {
  readonly capabilities: QueueCapabilities;
  /** Queues a job id (an id already waiting is not queued twice). */
  enqueue(jobId: string, options?: EnqueueOptions): Promise<void>;
  /**
   * Starts taking work; at most `concurrency` standard-lane handlers and `mediaConcurrency` (default 1)
   * media-lane handlers run at once.
   */
  start(handler: JobHandler, concurrency: number, mediaConcurrency?: number): void;
  /**
   * Stops taking work. Running handlers get `graceMs` to finish, then are aborted and their jobs
   * handed back to the queue so another process (or the next start) runs them again.
   */
  stop(graceMs: number): Promise<void>;
  /** Jobs waiting or running. */
  size(): Promise<number>;
  /** Per lane: waiting and running jobs and the oldest wait (a deployment-wide view where the queue is shared). */
  stats(): Promise<LaneStats[]>;
}
