/**
 * SSIMULACRA 2 of a whole output: what the guarantee promises (issue 25). The output check used to score a
 * 3×3 mosaic of 512 px tiles on images above 3.5 MP, and an audit on Debian's decoders found outputs of such
 * photos up to 2 points below their level on the whole image (MATE Aqua 2560×1600 as AVIF at `high`: 78.7).
 *
 * Up to WHOLE_SCORE_PIXELS (a 12 MP phone photo, 4K) the image is scored in one call: exact. One call holds
 * 32 bytes per pixel of metric planes (limits.ts SCORE_BYTES_PER_PIXEL), so a larger image is scored in horizontal bands of BAND_PIXELS, each
 * by the native addon, their per-scale statistics merged by pixel count (1-norms as weighted means, 4-norms
 * on their fourth powers; bands start on multiples of 32 rows so every 2×2 downsampling stays in one band).
 * The merge is exact but each band's blur has its own top and bottom edges, where the local statistics see
 * less distortion: banded scores read HIGH, measured +0.2 to +0.8 per band boundary on 1600–4000-row photos,
 * about 1,600 / height points per boundary at worst. So a banded score is lowered by BOUNDARY_ROWS / height
 * per boundary (docs/benchmarks.md, *The guarantee*). An exact banded score needs the addon to accumulate
 * only a band's inner rows while blurring over margins around it (the metric's next change).
 */
import type { Sharp } from 'sharp';
import { decodeRgb } from '../../shared/metric/pixels.ts';
import { BLUR_CONSTANTS } from '../../shared/metric/recursive-gaussian.ts';
import { alignChannels, measureSsimulacra2 } from '../../shared/metric/score.ts';
import {
  backgroundsOf,
  combine,
  linearTable,
  type RgbImage,
  type ScaleScores,
} from '../../shared/metric/ssimulacra2.ts';
import {
  nativeScaleStats,
  nativeSsimulacra2LoadError,
  STATS_PER_SCALE,
} from '../../shared/metric/ssimulacra2-native.ts';

/** Largest image scored in one call: 4000 × 3000 and a little more (403 MB of metric planes). */
export const WHOLE_SCORE_PIXELS = 12_600_000;
/** Pixels per band of a larger image (134 MB of metric planes). */
export const BAND_PIXELS = 4_200_000;
/**
 * Rows' worth of score a band boundary may add, divided by the image's height: measured at most ~1,250
 * (Garden 2560×1600, one boundary: +0.78) to ~1,600 (a 6000×4000 painting, five boundaries: +1.95).
 */
const BOUNDARY_ROWS = 2000;
/** Band starts are multiples of this: 2^5, the sixth scale's downsampling. */
const ROW_STEP = 32;
/** A band has at least this many rows: 8 rows at the sixth scale, so no band loses a scale. */
const MIN_BAND_ROWS = 8 * ROW_STEP;

/** The metric planes' pixels the check of a width × height output holds at once (for the memory budget). */
export function checkScoredPixels(width: number, height: number): number {
  const pixels = width * height;
  return pixels <= WHOLE_SCORE_PIXELS ? pixels : width * bandRows(width, height)[0]![1];
}

/** The row ranges of the bands of a width × height image (one band when it fits). */
export function bandRows(width: number, height: number): [number, number][] {
  if (width * height <= WHOLE_SCORE_PIXELS) return [[0, height]];
  const rows = Math.max(MIN_BAND_ROWS, Math.floor(BAND_PIXELS / width / ROW_STEP) * ROW_STEP);
  if (height <= rows + MIN_BAND_ROWS) return [[0, height]];
  const bands: [number, number][] = [];
  for (let y = 0; y < height; y += rows) bands.push([y, Math.min(height, y + rows)]);
  // A short last band would lose coarse scales the whole image has: it joins the one above.
  const last = bands[bands.length - 1]!;
  if (last[1] - last[0] < MIN_BAND_ROWS) {
    bands.pop();
    bands[bands.length - 1]![1] = last[1];
  }
  return bands;
}

/**
 * The whole-image SSIMULACRA 2 of `distorted` against `reference` (same size and channels): one call when
 * the image fits one band or the addon is not loaded (the TypeScript fallback scores it whole), otherwise
 * band by band, merged, less the bands' boundary allowance (a lower bound of the whole-image score).
 */
export async function wholeImageScore(reference: RgbImage, distorted: RgbImage): Promise<number> {
  const bands = bandRows(reference.width, reference.height);
  if (bands.length === 1 || nativeSsimulacra2LoadError() !== undefined)
    return measureSsimulacra2(reference, distorted);
  const scores: number[] = [];
  for (const background of backgroundsOf(reference, distorted)) {
    const merged: { weight: number; stats: Float64Array }[] = [];
    for (const [y0, y1] of bands) {
      const stats = await bandStats(reference, distorted, y0, y1, background);
      merged.push({ weight: y1 - y0, stats });
    }
    scores.push(combine(mergeBands(merged, reference.width)));
  }
  const boundaries = bands.length - 1;
  return Math.min(...scores) - (boundaries * BOUNDARY_ROWS) / reference.height;
}

function rowsOf(image: RgbImage, y0: number, y1: number): Uint8Array {
  const stride = image.width * image.channels;
  return image.data.subarray(y0 * stride, y1 * stride);
}

function bandStats(
  reference: RgbImage,
  distorted: RgbImage,
  y0: number,
  y1: number,
  background: number,
): Promise<Float64Array> {
  return nativeScaleStats(
    rowsOf(reference, y0, y1),
    reference.channels,
    linearTable(reference.channels as 3 | 4, background),
    rowsOf(distorted, y0, y1),
    distorted.channels,
    linearTable(distorted.channels as 3 | 4, background),
    reference.width,
    y1 - y0,
    BLUR_CONSTANTS,
  );
}

/**
 * Merges the bands' statistics by each band's pixel count at each scale. Per scale and channel the addon
 * gives [ssim 1-norm, ssim 4-norm] and [ringing 1-norm, 4-norm, blurring 1-norm, 4-norm].
 */
function mergeBands(bands: { weight: number; stats: Float64Array }[], width: number): ScaleScores[] {
  const scaleCount = Math.min(...bands.map((b) => b.stats.length / STATS_PER_SCALE));
  const scales: ScaleScores[] = [];
  for (let s = 0; s < scaleCount; s++) {
    const cols = Math.ceil(width / 2 ** s);
    const sums = new Float64Array(STATS_PER_SCALE);
    let total = 0;
    for (const band of bands) {
      const n = cols * Math.ceil(band.weight / 2 ** s);
      total += n;
      for (let k = 0; k < STATS_PER_SCALE; k++) {
        const value = band.stats[s * STATS_PER_SCALE + k]!;
        // Odd positions of each pair are 4-norms: merged on their fourth powers.
        sums[k] = (sums[k] ?? 0) + n * (k % 2 === 1 ? value ** 4 : value);
      }
    }
    const stat = (k: number) => {
      const mean = (sums[k] ?? 0) / total;
      return k % 2 === 1 ? Math.sqrt(Math.sqrt(mean)) : mean;
    };
    scales.push({
      ssim: Array.from({ length: 6 }, (_, k) => stat(k)),
      edge: Array.from({ length: 12 }, (_, k) => stat(6 + k)),
    });
  }
  return scales;
}

/** `wholeImageScore` of an output decoded with or without alpha against its reference: same layout first. */
export function scoreWholeOutput(reference: RgbImage, output: RgbImage): Promise<number> {
  return wholeImageScore(...alignChannels(reference, output));
}

/** Pixels an output of `pipeline` is scored against (JPEG has no alpha: flattened on white first). */
export async function referencePixels(pipeline: Sharp, flatten: boolean): Promise<RgbImage> {
  const source = flatten ? pipeline.clone().flatten({ background: '#ffffff' }) : pipeline.clone();
  return decodeRgb(source);
}
