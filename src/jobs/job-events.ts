/**
 * Tells waiting synchronous requests that a job changed (input known, finished). Embedded: an
 * in-process emitter; scaled: Redis pub/sub, because the API process that waits is not the worker.
 */
import { EventEmitter } from 'node:events';

export interface JobWatch {
  /** Resolves true on a change since the last call (or creation), false after `timeoutMs` or on abort. */
  next(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  close(): void;
}

export interface JobEvents {
  publishChanged(jobId: string): Promise<void>;
  /** Subscribe before reading the job's state, so no change between the read and the wait is missed. */
  watch(jobId: string): Promise<JobWatch>;
  /** How many watches are open: each is a waiting request or event stream (a leak shows here). */
  openWatches(): number;
  close(): Promise<void>;
}

/** Buffers one pending change so a notification that arrives between two `next()` calls is not lost. */
export class ChangeLatch implements JobWatch {
  #pending = false;
  #wake: ((changed: boolean) => void) | undefined;
  readonly #onClose: () => void;

  constructor(onClose: () => void) {
    this.#onClose = onClose;
  }

  signal(): void {
    if (this.#wake) this.#wake(true);
    else this.#pending = true;
  }

  next(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve(true);
    }
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => finish(false);
      const timer = setTimeout(onAbort, Math.max(0, timeoutMs));
      const finish = (changed: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#wake = undefined;
        resolve(changed);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#wake = finish;
    });
  }

  close(): void {
    this.#wake?.(false);
    this.#onClose();
  }
}

export class LocalJobEvents implements JobEvents {
  readonly #emitter = new EventEmitter().setMaxListeners(0);
  /** Open watches, so close() can release their waiters instead of leaving them to their time-outs. */
  readonly #watches = new Set<ChangeLatch>();

  async publishChanged(jobId: string): Promise<void> {
    this.#emitter.emit(jobId);
  }

  async watch(jobId: string): Promise<JobWatch> {
    const listener = () => latch.signal();
    const latch = new ChangeLatch(() => {
      this.#emitter.off(jobId, listener);
      this.#watches.delete(latch);
    });
    this.#emitter.on(jobId, listener);
    this.#watches.add(latch);
    return latch;
  }

  openWatches(): number {
    return this.#watches.size;
  }

  /** Releases every waiting `next()` with false (a shutdown answers waiting requests at once). */
  async close(): Promise<void> {
    for (const watch of [...this.#watches]) watch.close();
    this.#emitter.removeAllListeners();
  }
}
