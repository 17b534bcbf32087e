/**
 * Tells waiting synchronous requests that a job finished. Embedded: an in-process emitter;
 * scaled: Redis pub/sub, because the API process that waits is not the worker that finishes.
 */
import { EventEmitter } from 'node:events';

export interface JobEvents {
  publishFinished(jobId: string): Promise<void>;
  /** Resolves true when the job finishes, false when `timeoutMs` passes or `signal` aborts first. */
  waitForFinished(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}

export class LocalJobEvents implements JobEvents {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  async publishFinished(jobId: string): Promise<void> {
    this.#emitter.emit(jobId);
  }

  waitForFinished(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (finished: boolean) => {
        clearTimeout(timer);
        this.#emitter.off(jobId, onFinished);
        signal?.removeEventListener('abort', onAbort);
        resolve(finished);
      };
      const onFinished = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#emitter.once(jobId, onFinished);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    this.#emitter.removeAllListeners();
  }
}
