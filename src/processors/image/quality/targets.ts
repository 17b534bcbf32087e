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

/**
 * What every output must score above its level's target on Presso's metric, so that it meets the target on
 * the reference `ssimulacra2` with the output and source as Debian's decoders (djpeg, dwebp, avifdec) decode
 * them (issue 25). 0.3 covers the metric's difference from the reference where Presso reads higher (at most
 * +0.11 on opaque untagged pairs and +0.24 on alpha pairs of test/fixtures/ssimulacra2); djpeg and dwebp
 * decode Presso's JPEG and WebP to the very pixels sharp does. avifdec does not: its YUV → RGB rounds ±1
 * level away from libheif's on 3–17 % of samples, with a bias per channel (R and B up, G down) that cost
 * up to 0.60 points (MATE Aqua at AVIF q64; 0.45 Dune, 0.37 a phone photo), so AVIF keeps 0.6 more. docs/benchmarks.md,
 * *The guarantee*, has the audit that measured them.
 */
export const GUARANTEE_MARGIN = 0.3;
const AVIF_DECODER_MARGIN = 0.6;

/** The margin above the target an output of `format` is checked against. */
export function guaranteeMargin(format: string): number {
  return format === 'avif' ? GUARANTEE_MARGIN + AVIF_DECODER_MARGIN : GUARANTEE_MARGIN;
}

/** Cap of the per-image quality search: trials (proxy encodes) per output format, never wall time. */
export const SEARCH_LIMITS = { maxTrials: 6 } as const;
