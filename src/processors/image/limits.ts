/**
 * Safety limits of the image processor (configurable through the `images` config section) and the
 * per-image deadline every sharp pipeline and external tool of one job shares.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';

export interface ImageLimits {
  /** Decoded pixels of one job's input, summed over the frames of an animation. */
  maxPixels: number;
  /** Frames of an animation (GIF, WebP) that are decoded at most. */
  maxFrames: number;
  /** Wall time one image may take in all (sharp pipelines and external tools together). */
  timeBudgetMs: number;
  /** Largest SVG source accepted. */
  svgMaxBytes: number;
  /** Deepest element nesting accepted in an SVG. */
  svgMaxDepth: number;
  /** Decoded pixels that all image jobs of this process may hold at once (see pixel-budget.ts). */
  pixelsInFlight: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = {
  maxPixels: 50_000_000,
  maxFrames: 1000,
  timeBudgetMs: 120_000,
  svgMaxBytes: 10 * 1024 * 1024,
  svgMaxDepth: 256,
  pixelsInFlight: 40_000_000,
};

/** The time left of one image's budget; `remainingMs` never goes below 1 so callers can pass it on. */
export class Deadline {
  readonly #end: number;
  #signal: AbortSignal | undefined;
  readonly budgetMs: number;

  constructor(budgetMs: number) {
    this.budgetMs = budgetMs;
    this.#end = performance.now() + budgetMs;
  }

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

  /** Whole seconds for sharp's `timeout()` (its resolution); at least 1. */
  remainingSeconds(): number {
    return Math.max(1, Math.ceil(this.remainingMs() / 1000));
  }

  exceeded(cause?: unknown): UnprocessableInputError {
    return new UnprocessableInputError(
      `Processing the image took longer than the time budget of ${Math.round(this.budgetMs / 1000)} s.`,
      cause,
    );
  }
}

/** Refuses an input from its header: more pixels (over all frames) or frames than the limits allow. */
export function checkPixelLimits(width: number, height: number, frames: number, limits: ImageLimits): void {
  if (!(width > 0 && height > 0)) {
    throw new UnprocessableInputError('The image header gives no valid width and height.');
  }
  if (frames > limits.maxFrames) {
    throw new UnprocessableInputError(
      `The animation has ${frames} frames; this server accepts at most ${limits.maxFrames}.`,
    );
  }
  const pixels = width * height * Math.max(1, frames);
  if (pixels > limits.maxPixels) {
    const mp = (n: number) => `${Math.round(n / 1e5) / 10} MP`;
    throw new UnprocessableInputError(
      `The image is ${width}×${height}${frames > 1 ? ` × ${frames} frames` : ''} (${mp(pixels)}); ` +
        `this server accepts at most ${mp(limits.maxPixels)}.`,
    );
  }
}
