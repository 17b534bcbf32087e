/**
 * The compression levels, defined by perceptual targets (SSIMULACRA 2, 0–100, higher is better; scores
 * are of the output against the decoded input at full resolution). Reference points on this scale
 * (Sneyers, libjxl docs): 90 ≈ visually lossless at 1:1, 80 ≈ very high quality, 70 ≈ high quality,
 * 50 ≈ medium. `lossless` has no target: it never loses pixel data (no generational loss).
 */
import type { CompressionLevel } from '../params.ts';

export type LossyLevel = Exclude<CompressionLevel, 'lossless'>;

export const QUALITY_TARGETS: Record<LossyLevel, number> = {
  medium: 85,
  high: 80,
  ultra: 70,
};

/**
 * The search scores a mosaic of full-resolution tiles (shared/metric/pixels.ts), which read on average ~1 point
 * higher than the whole image on the corpus: the search aims this much above the target.
 */
export const PROXY_MARGIN = 1;

/** Cap of the per-image quality search: trials (proxy encodes) per output format, never wall time. */
export const SEARCH_LIMITS = { maxTrials: 6 } as const;
