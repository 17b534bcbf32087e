/**
 * The time budget one job's processing shares across every library call and external tool it makes.
 * Kind-neutral: each processor names what it processes ("the image", "the video") so the one message
 * a client sees says what took too long.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';

/** The time left of one job's budget; `remainingMs` never goes below 1 so callers can pass it on. */
export class Deadline {
  readonly #end: number;
  #signal: AbortSignal | undefined;
  readonly budgetMs: number;
  /** What is being processed, for the message: "the image", "the video". */
  readonly subject: string;

  constructor(budgetMs: number, subject = 'the file') {
    this.budgetMs = budgetMs;
    this.subject = subject;
    this.#end = performance.now() + budgetMs;
  }

  /** Milliseconds left; throws the budget error once none are. */
  remainingMs(): number {
    const left = Math.floor(this.#end - performance.now());
    if (left <= 0) throw this.exceeded();
    return left;
  }

  isExceeded(): boolean {
    return performance.now() >= this.#end;
  }

  /**
   * Aborted with `exceeded()` when the budget runs out, for work that checks a signal between steps
   * (the quality search). Its timer is unref'd: a finished job leaves nothing that holds the process.
   */
  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      const left = Math.max(0, this.#end - performance.now());
      setTimeout(() => controller.abort(this.exceeded()), left).unref();
      this.#signal = controller.signal;
    }
    return this.#signal;
  }

  /** Whole seconds, for APIs with second resolution (sharp's `timeout()`); at least 1. */
  remainingSeconds(): number {
    return Math.max(1, Math.ceil(this.remainingMs() / 1000));
  }

  /** The catalogued error for a job that ran out of time; a job that gets it fails and is not retried. */
  exceeded(cause?: unknown): UnprocessableInputError {
    const seconds = this.budgetMs >= 1000 ? Math.round(this.budgetMs / 1000) : this.budgetMs / 1000;
    return new UnprocessableInputError(
      `Processing ${this.subject} took longer than the time budget of ${seconds} s.`,
      cause,
    );
  }
}
