/**
 * PNG at a lossy level, smallest candidate that meets the level's perceptual target:
 *  1. a libimagequant palette (what pngquant does), kept when it scores at the target: graphics, icons,
 *     screenshots, flat art;
 *  2. otherwise near-lossless (codecs/png-near-lossless.ts), with the largest residual step whose proxy
 *     still meets the target: photographs and gradients, where no 256-colour palette is good enough;
 *  3. otherwise lossless.
 * Every result then goes through oxipng (codecs/oxipng.ts). Lossless PNG is sharp's output through oxipng.
 */
import type { Sharp } from 'sharp';
import { optimisePng } from './codecs/oxipng.ts';
import { ancillaryChunks } from './codecs/png-chunks.ts';
import { encodeNearLosslessPng, quantiseResiduals } from './codecs/png-near-lossless.ts';
import { bufferedOutput, type EncodedOutput } from './encoded-output.ts';
import { decodeRgb, mosaic, SEARCH_MOSAIC } from './quality/pixels.ts';
import { measureSsimulacra2, SCORE_MOSAIC, scoreEncodedAgainstMosaic, scorePixels } from './quality/score.ts';
import { searchQuality } from './quality/search.ts';
import { type LossyLevel, PROXY_MARGIN, QUALITY_TARGETS, SEARCH_LIMITS } from './quality/targets.ts';

/** libimagequant picks the fewest palette colours that reach this quality (0–100). */
const PALETTE_QUALITY: Record<LossyLevel, number> = { medium: 90, high: 80, ultra: 65 };

/**
 * Residual steps searched for near-lossless (1 = lossless). Starting points are corpus medians of the step
 * that meets each target (astronaut, coffee, MATE wallpapers: high 5–11, docs/benchmarks.md).
 */
const MAX_STEP = 32;
const START_STEP: Record<LossyLevel, number> = { medium: 5, high: 7, ultra: 12 };

export interface PngTuningReport {
  /** Near-lossless residual step chosen. */
  quality?: number;
  trials: number;
  proxyScore?: number;
  fallback?: 'near-lossless' | 'lossless';
}

export function paletteOptions(level: LossyLevel) {
  return {
    palette: true,
    quality: PALETTE_QUALITY[level],
    effort: 10,
    compressionLevel: 9,
    dither: 1,
  } as const;
}

export const LOSSLESS_PNG = { palette: false, compressionLevel: 9, adaptiveFiltering: true } as const;

export async function losslessPng(pipeline: Sharp): Promise<EncodedOutput> {
  return bufferedOutput(await optimisePng(await pipeline.png(LOSSLESS_PNG).toBuffer()));
}

export async function tunedPng(
  pipeline: Sharp,
  level: LossyLevel,
  report: PngTuningReport,
  signal?: AbortSignal,
): Promise<EncodedOutput> {
  const target = QUALITY_TARGETS[level] + PROXY_MARGIN;
  // Peak memory at 49 MP (bench/memory): libimagequant's working copy, the decoded reference (147 MB) and
  // the score's float planes (~190 MB) were held at once (670 MB RSS). Now the palette is made first,
  // only the reference's wide mosaic is kept while scoring, and the reference is decoded again only when
  // the palette fails (photographs, which are smaller in practice).
  const palette = await pipeline.clone().png(paletteOptions(level)).toBuffer();
  const decoded = await decodeRgb(pipeline.clone());
  const wide = mosaic(decoded, SCORE_MOSAIC);
  // An image no larger than the wide mosaic is its own mosaic: decoded whole already, kept as `wide`.
  const small = wide === decoded;
  report.trials = 1;
  // Scored whole (wide mosaic): a palette either serves the image or it does not. The palette PNG is
  // decoded band by band into that mosaic, never whole.
  report.proxyScore = await scoreEncodedAgainstMosaic(wide, palette, 'png');
  if (report.proxyScore >= QUALITY_TARGETS[level]) return bufferedOutput(await optimisePng(palette));

  signal?.throwIfAborted();
  const reference = small ? wide : await decodeRgb(pipeline.clone());
  const proxy = mosaic(reference, SEARCH_MOSAIC);
  // searchQuality looks for the lowest passing "quality": quality q stands for step MAX_STEP + 1 - q.
  const result = await searchQuality({
    min: 1,
    max: MAX_STEP,
    start: MAX_STEP + 1 - START_STEP[level],
    target,
    ...SEARCH_LIMITS,
    signal,
    trial: async (quality) => {
      const { reconstructed } = quantiseResiduals(proxy, MAX_STEP + 1 - quality);
      return measureSsimulacra2(proxy, reconstructed);
    },
  });
  report.trials += result.trials.length;
  // The proxy can misread an image whose hard areas fall between its tiles: the whole reconstruction is
  // scored on the wide mosaic, and the step shrinks until it meets the target (at most 3 checks).
  let step = MAX_STEP + 1 - result.quality;
  for (let check = 0; check < 3 && step > 1; check++) {
    signal?.throwIfAborted();
    const quantised = quantiseResiduals(reference, step);
    const score = await scorePixels(reference, quantised.reconstructed);
    report.trials += 1;
    if (score >= QUALITY_TARGETS[level]) {
      report.fallback = 'near-lossless';
      report.quality = step;
      report.proxyScore = score;
      // The palette PNG carries the metadata the pipeline keeps (ICC, EXIF, text): reuse its chunks.
      // No oxipng here: on near-lossless photos it never beat the level-9 deflate with per-row filters
      // (canon 1280×960, astronaut, chelsea at step 7: same bytes) and cost 1.6 CPU-s at 1.2 MP.
      return bufferedOutput(encodeNearLosslessPng(quantised, ancillaryChunks(palette)));
    }
    step = Math.max(1, step - Math.max(1, Math.round(step / 4)));
  }
  report.fallback = 'lossless';
  return losslessPng(pipeline);
}
