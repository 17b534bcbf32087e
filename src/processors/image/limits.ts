/**
 * Safety limits of the image processor (their values and defaults: `config.ts`). The
 * per-image deadline every sharp pipeline and external tool of one job shares is `shared/deadline.ts`.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';

/**
 * Copies of its decoded pixels an image job holds at its peak: libvips' decoded input and the encoder's
 * or the quality search's working copy (bench/memory: a 49 MP flat PNG peaks 2.2 copies above the idle
 * process, a 24 MP JPEG at the high level 2.0; fixed costs such as the score's planes come on top).
 */
export const WORKING_COPIES = 2;

/** Bytes of one sample for sharp's `depth` names; 8-bit unless the header says otherwise. */
const SAMPLE_BYTES: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  double: 8,
  complex: 8,
  dpcomplex: 16,
};

/**
 * A job's share of the in-flight budget for its decoded copies: its decoded pixels (all frames of an
 * animation) × channels × bytes per sample × the working copies. Bare pixels undercounted RGBA and 16-bit
 * images by 4-8×.
 */
export function memoryShare(
  meta: { width?: number; height?: number; pageHeight?: number; channels?: number; depth?: string },
  frames: number,
): number {
  const width = meta.width ?? 0;
  const pixels = meta.pageHeight ? width * meta.pageHeight * Math.max(1, frames) : width * (meta.height ?? 0);
  const sampleBytes = SAMPLE_BYTES[meta.depth ?? 'uchar'] ?? 1;
  return pixels * (meta.channels ?? 4) * sampleBytes * WORKING_COPIES;
}

/**
 * Bytes the native SSIMULACRA 2 holds per scored pixel while it scores one-shot (native/ssimulacra2: both
 * images' float32 planes of every scale in one block, 24 bytes × 4/3; its blurs stream row by row). They
 * live outside the JS heap and outside libvips, so the working copies do not cover them. A score against
 * a prepared reference holds 16 (the distorted planes) beside the reference's ~48 per background
 * (quality/search-references.ts preparedReferenceBytes).
 */
export const SCORE_BYTES_PER_PIXEL = 32;

/**
 * A job's whole share: its decoded copies (`memoryShare`), the metric's scratch for the pixels its
 * output check scores (`scoredPixels` of shared/metric/score.ts: the 2.4 MP wide mosaic at most), and the
 * proxy a lossy search keeps prepared (`preparedBytes`, quality/search-references.ts). Without the
 * scratch, two 24 MP photos (144 MB of copies each) ran together under the 400 MB budget and their
 * scorings (~170 MB each before the blurs streamed) took `presso serve` to 619-678 MB; counted, they
 * take turns (docs/benchmarks.md, Memory).
 */
export function jobShare(
  meta: Parameters<typeof memoryShare>[0],
  frames: number,
  scoredPixels: number,
  preparedBytes = 0,
): number {
  return memoryShare(meta, frames) + scoredPixels * SCORE_BYTES_PER_PIXEL + preparedBytes;
}

/**
 * The decoded copies of the largest image accepted, as 8-bit RGBA: the budget must hold them, or such an
 * image would never fit and the budget would bound nothing. Its whole share (with the metric's scratch,
 * or a deeper image of that size) is clamped to the budget by AdmissionBudget: it runs alone.
 */
export function largestImageShare(limits: { maxPixels: number }): number {
  return limits.maxPixels * 4 * WORKING_COPIES;
}

/** Refuses an input from its header: more pixels (over all frames) or frames than the limits allow. */
export function checkPixelLimits(
  width: number,
  height: number,
  frames: number,
  limits: { maxPixels: number; maxFrames: number },
): void {
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
