/**
 * The machinery every claim-and-run worker needs, written once: a bounded set of items in flight,
 * each with its own AbortController; a pump that claims work while there is room (woken by a
 * `kick()` and by a slow safety-net poll); and a graceful `stop()` that waits for the work in flight
 * and aborts what outlives the grace period. The SQLite job queue and the webhook dispatcher are
 * built on it; it knows nothing of jobs, webhooks or storage, only of the `WorkSource` it is given.
 *
 * Everything here runs from timers and promise callbacks, where a throw would end the process, so
 * nothing it calls may throw out of it: failures go to the source's `onPumpError` / `onWorkError`.
 */

/**
 * Where the work comes from and what it is. Hooks are called one pump at a time (never two at
 * once), so a source needs no locking of its own between them.
 */
export interface WorkSource<T> {
  /**
   * Takes up to `limit` (at least 1) items that are due and marks them taken, so that no other
   * claim returns them. Returns none when nothing is due; the pump then stops until the next kick.
   */
  claim(limit: number): Promise<readonly T[]> | readonly T[];
  /** A key unique among the items in flight. */
  idOf(item: T): string;
  /**
   * Does one item. `signal` aborts once `stop()`'s grace period is over. A rejection is handed to
   * `onWorkError`; either way the item leaves the pool and the pump runs again.
   */
  process(item: T, signal: AbortSignal): Promise<void>;
  /** Items claimed while `stop()` was called: they were never started, give them back. */
  release(items: readonly T[]): Promise<void> | void;
  /** Runs at each pump before any claim (crash recovery, writes that failed before). A throw ends the pump. */
  beforeClaims?(): Promise<void> | void;
  /** Runs at each pump that claimed without a failure, once nothing more can be claimed. */
  afterClaims?(): Promise<void> | void;
  /** A hook or a claim threw; the pump is over and the next kick or poll tries again. */
  onPumpError(error: unknown): void;
  /** `process` rejected for the item `id`. */
  onWorkError(error: unknown, id: string): void;
}

export interface WorkPoolOptions {
  /** Items in flight at once (at least 1). */
  concurrency: number;
  /** The safety-net poll: the pump runs at least this often while the pool runs. */
  pollMs: number;
}

interface InFlight {
  controller: AbortController;
  done: Promise<void>;
}

/** How long aborted work gets to settle before a stop stops waiting for it. */
const ABORT_WAIT_MS = 2000;

export class WorkPool<T> {
  readonly #source: WorkSource<T>;
  readonly #concurrency: number;
  readonly #pollMs: number;
  readonly #inFlight = new Map<string, InFlight>();
  #pollTimer: NodeJS.Timeout | undefined;
  #running = false;
  #pumping = false;
  #pumpAgain = false;

  constructor(source: WorkSource<T>, options: WorkPoolOptions) {
    this.#source = source;
    this.#concurrency = Math.max(1, options.concurrency);
    this.#pollMs = options.pollMs;
  }

  /** True between `start()` and `stop()`. */
  get running(): boolean {
    return this.#running;
  }

  /** Items being processed now (including, during `stop()`, those still finishing). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Whether a claim now could start anything: running and under the concurrency. */
  get hasRoom(): boolean {
    return this.#running && this.#inFlight.size < this.#concurrency;
  }

  /** Starts the poll and pumps at once. Calling it while running does nothing. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#pollTimer = setInterval(() => this.kick(), this.#pollMs);
    // The poll alone must not keep a process alive that has nothing else to do.
    this.#pollTimer.unref();
    this.kick();
  }

  /** Asks for a pump (new work may be due). Cheap and safe to call anywhere; does nothing when stopped. */
  kick(): void {
    if (this.#running) void this.#pump();
  }

  /**
   * Stops claiming. Items in flight get `graceMs` to finish; then they are aborted (their signal's
   * reason is an Error 'shutting down') and awaited. Resolves once nothing is in flight.
   */
  async stop(graceMs: number): Promise<void> {
    this.#running = false;
    clearInterval(this.#pollTimer);
    const finished = Promise.allSettled([...this.#inFlight.values()].map((item) => item.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      finished.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      for (const item of this.#inFlight.values()) item.controller.abort(new Error('shutting down'));
      // Work that ignores its abort (a native call that cannot be interrupted) must not hold the process
      // past a last short wait: its claim stays, and the next start (or the queue's lock expiry) runs it again.
      await Promise.race([
        finished,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, ABORT_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
  }

  /** Claims while there is room. One pump at a time: a kick meanwhile makes the running one go round again. */
  async #pump(): Promise<void> {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#pumpAgain = false;
        await this.#source.beforeClaims?.();
        while (this.hasRoom) {
          const batch = await this.#source.claim(this.#concurrency - this.#inFlight.size);
          if (batch.length === 0) break;
          if (!this.#running) {
            // stop() came while claiming: hand these back rather than start work nobody waits for.
            await this.#source.release(batch);
            break;
          }
          for (const item of batch) this.#launch(item);
        }
        await this.#source.afterClaims?.();
      } while (this.#pumpAgain && this.#running);
    } catch (error) {
      this.#report(() => this.#source.onPumpError(error));
    } finally {
      this.#pumping = false;
    }
  }

  #launch(item: T): void {
    const id = this.#source.idOf(item);
    const controller = new AbortController();
    let work: Promise<void>;
    try {
      // Started synchronously, as claimed: the item is in flight before the pump claims again.
      work = this.#source.process(item, controller.signal);
    } catch (error) {
      work = Promise.reject(error);
    }
    const done = work
      .catch((error: unknown) => this.#report(() => this.#source.onWorkError(error, id)))
      .finally(() => {
        this.#inFlight.delete(id);
        this.kick();
      });
    this.#inFlight.set(id, { controller, done });
  }

  /** Runs an error hook; a hook that throws must not turn into an unhandled rejection. */
  #report(hook: () => void): void {
    try {
      hook();
    } catch {
      // Nothing is left to tell: the hook was the way to report.
    }
  }
}
