/**
 * Safety limits of the image processor (configurable through the `images` config section). The
 * per-image deadline every sharp pipeline and external tool of one job shares is `shared/deadline.ts`.
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
  /** Elements accepted in an SVG (svgo's time grows faster than the element count). */
  svgMaxElements: number;
  /** Decoded pixels that all image jobs of this process may hold at once (see shared/admission-budget.ts). */
  pixelsInFlight: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = {
  maxPixels: 50_000_000,
  maxFrames: 1000,
  timeBudgetMs: 120_000,
  svgMaxBytes: 10 * 1024 * 1024,
  svgMaxDepth: 256,
  // Icons, logos and charts have far fewer. svgo's multipass took 6 s for 10,000 and 100 s for 49,000
  // (one busy core); the time budget kills the child process of anything slower.
  svgMaxElements: 50_000,
  pixelsInFlight: 40_000_000,
};

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
