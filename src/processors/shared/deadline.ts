/**
 * The time budget one job's processing shares across every library call and external tool it makes.
 * Kind-neutral: each processor names what it processes ("the image", "the video") so the one message
 * a client sees says what took too long.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';

/** The time left of one job's budget; `remainingMs` never goes below 1 so callers can pass it on. */
export class Deadline {
  readonly #start: number;
  #end: number;
  #controller: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #budgetMs: number;
  /** What is being processed, for the message: "the image", "the video". */
  readonly subject: string;

  constructor(budgetMs: number, subject = 'the file') {
    this.#budgetMs = budgetMs;
    this.subject = subject;
    this.#start = performance.now();
    this.#end = this.#start + budgetMs;
  }

  /** The whole budget, counted from the start (lowered by `limitTo`). */
  get budgetMs(): number {
    return this.#budgetMs;
  }

  /**
   * Lowers the budget to `budgetMs` from the start, never raises it: a processor starts with what the input's
   * size earns and limits it once the header says how much work the input declares (time-budget.ts).
   */
  limitTo(budgetMs: number): void {
    if (!(budgetMs < this.#budgetMs)) return;
    this.#budgetMs = budgetMs;
    this.#end = this.#start + budgetMs;
    if (this.#controller !== undefined) this.#arm(this.#controller);
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
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      this.#arm(this.#controller);
    }
    return this.#controller.signal;
  }

  #arm(controller: AbortController): void {
    clearTimeout(this.#timer);
    const left = Math.max(0, this.#end - performance.now());
    this.#timer = setTimeout(() => controller.abort(this.exceeded()), left).unref();
  }

  /** Whole seconds, for APIs with second resolution (sharp's `timeout()`); at least 1. */
  remainingSeconds(): number {
    return Math.max(1, Math.ceil(this.remainingMs() / 1000));
  }

  /** The catalogued error for a job that ran out of time; a job that gets it fails and is not retried. */
  exceeded(cause?: unknown): UnprocessableInputError {
    const seconds = this.#budgetMs >= 1000 ? Math.round(this.#budgetMs / 1000) : this.#budgetMs / 1000;
    return new UnprocessableInputError(
      `Processing ${this.subject} took longer than the time budget of ${seconds} s.`,
      cause,
    );
  }
}
