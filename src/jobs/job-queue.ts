/**
 * The work queue. Embedded: a table in the SQLite database, so accepted work survives a crash;
 * scaled: BullMQ on Redis. A queue knows job ids only, never what a job does.
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

export interface JobQueue {
  readonly capabilities: QueueCapabilities;
  enqueue(jobId: string): Promise<void>;
  /** Starts taking work; at most `concurrency` handlers run at once. */
  start(handler: JobHandler, concurrency: number): void;
  /**
   * Stops taking work. Running handlers get `graceMs` to finish, then are aborted and their jobs
   * handed back to the queue so another process (or the next start) runs them again.
   */
  stop(graceMs: number): Promise<void>;
  /** Jobs waiting or running. */
  size(): Promise<number>;
}
