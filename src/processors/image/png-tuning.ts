/**
 * PNG at a lossy level, smallest candidate that meets the level's perceptual target:
 *  1. a libimagequant palette (what pngquant does) at the lowest quality that meets the target, searched
 *     (png-palette.ts): graphics, icons, screenshots, flat art, and palette inputs kept exact;
 *  2. when no palette serves, the smaller of near-lossless (codecs/png-near-lossless.ts, the largest
 *     residual step that still meets the target: photographs) and lossless (smooth gradients, where
 *     quantised residuals deflate worse than exact ones).
 * Palette and lossless results go through oxipng (codecs/oxipng.ts).
 *
 * Levels are monotonic (ultra <= high <= medium bytes on the same image) by construction, with no extra
 * encode: every step picks the smallest or the lowest-quality candidate that meets a target, and whatever
 * meets a stricter target meets a looser one. The palette path is taken at a looser level whenever it is
 * at a stricter one (the quality-100 palette's score decides), its search finds a quality no higher, and
 * the near-lossless step found for a looser target is no smaller; lossless is a candidate at every level.
 * test/processors/image/png-levels.test.ts checks it on corpus images of each kind.
 */
import type { Sharp } from 'sharp';
import { decodeRgb, mosaic, SEARCH_MOSAIC } from '../shared/metric/pixels.ts';
import { releasePixels, watchPixels } from '../shared/metric/release-pixels.ts';
import { measureSsimulacra2, SCORE_MOSAIC, scorePixels } from '../shared/metric/score.ts';
import type { RgbImage } from '../shared/metric/ssimulacra2.ts';
import { optimisePng } from './codecs/oxipng.ts';
import { ancillaryChunks } from './codecs/png-chunks.ts';
import {
  encodeNearLosslessPng,
  type NearLosslessResult,
  quantiseResiduals,
} from './codecs/png-near-lossless.ts';
import { bufferedOutput, type EncodedOutput } from './encoded-output.ts';
import { paletteEncoding, searchPalette } from './png-palette.ts';
import { searchQuality } from './quality/search.ts';
import { type LossyLevel, PROXY_MARGIN, QUALITY_TARGETS, SEARCH_LIMITS } from './quality/targets.ts';

/**
 * libimagequant quality of the plain palette setting (no search: animations' fallback, `auto`'s probe of
 * the PNG candidate).
 */
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
  /** libimagequant quality and dithering of the palette chosen. */
  palette?: { quality: number; dither: number };
  trials: number;
  proxyScore?: number;
  fallback?: 'near-lossless' | 'lossless';
}

export function paletteOptions(level: LossyLevel) {
  return paletteEncoding(PALETTE_QUALITY[level], 1);
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
  const target = QUALITY_TARGETS[level];
  // Peak memory at 49 MP (bench/memory): libimagequant's working copy, the decoded reference (147 MB) and
  // the score's float planes (~190 MB) were held at once (670 MB RSS). Only the reference's wide mosaic is
  // kept while the palettes are scored, and the reference is decoded again only when no palette serves
  // (photographs, which are smaller in practice).
  const { wide, small, dropped } = await referenceMosaic(pipeline);
  // The decoded image is freed now, not while libimagequant makes its own copy.
  if (!small) await releasePixels(dropped);
  // Scored whole (wide mosaic): a palette either serves the image or it does not. Palette PNGs are
  // decoded band by band into that mosaic, never whole.
  const palettes = await searchPalette(pipeline, wide, target, signal);
  report.trials = palettes.trials;
  report.proxyScore = (palettes.best ?? palettes.top).score;
  if (palettes.best !== undefined) {
    report.palette = { quality: palettes.best.quality, dither: palettes.best.dither };
    return bufferedOutput(await optimisePng(palettes.best.png, signal));
  }
  signal?.throwIfAborted();
  const reference = small ? wide : await decodeRgb(pipeline.clone());
  const nearLossless = await searchNearLossless(reference, level, report, signal);
  // Lossless competes too: on smooth gradients (flat wallpapers) quantised residuals break deflate's
  // matches, and a 1920×1080 Debian wallpaper came to 481,365 B near-lossless against 92,404 B lossless.
  // Zlib level 6 here: oxipng recompresses the file if it wins anyway, and level 9 cost 7.8 CPU-s on a
  // 12 MP photo (level 6: 1.8 s, 5 % larger), where near-lossless is half its size.
  signal?.throwIfAborted();
  const lossless = await pipeline
    .clone()
    .png({ ...LOSSLESS_PNG, compressionLevel: 6 })
    .toBuffer();
  if (nearLossless !== undefined) {
    // oxipng takes 5–15 % off sharp's level-9 deflate and ~5 % more off level 6: only a lossless file
    // within that of the near-lossless one is worth optimising.
    const encoded = encodeNearLosslessPng(nearLossless.quantised, ancillaryChunks(palettes.top.png));
    const optimised =
      lossless.length * 0.8 < encoded.length ? await optimisePng(lossless, signal) : undefined;
    if (optimised === undefined || optimised.length >= encoded.length) {
      report.fallback = 'near-lossless';
      report.quality = nearLossless.step;
      report.proxyScore = nearLossless.score;
      return bufferedOutput(encoded);
    }
    report.fallback = 'lossless';
    return bufferedOutput(optimised);
  }
  report.fallback = 'lossless';
  return bufferedOutput(await optimisePng(lossless, signal));
}

/**
 * The wide mosaic of the decoded pipeline; the decode itself is unreachable once this returns. An image no
 * larger than the wide mosaic is its own mosaic (`small`): decoded whole already, kept as `wide`.
 */
async function referenceMosaic(pipeline: Sharp) {
  const decoded = await decodeRgb(pipeline.clone());
  const wide = mosaic(decoded, SCORE_MOSAIC);
  return { wide, small: wide === decoded, dropped: watchPixels(decoded.data) };
}

/**
 * The largest residual step whose reconstruction meets the level's target: searched on the proxy, then
 * checked on the whole reconstruction (wide mosaic); undefined when no step above 1 passes.
 */
async function searchNearLossless(
  reference: RgbImage,
  level: LossyLevel,
  report: PngTuningReport,
  signal?: AbortSignal,
): Promise<{ quantised: NearLosslessResult; step: number; score: number } | undefined> {
  const proxy = mosaic(reference, SEARCH_MOSAIC);
  // searchQuality looks for the lowest passing "quality": quality q stands for step MAX_STEP + 1 - q.
  const result = await searchQuality({
    min: 1,
    max: MAX_STEP,
    start: MAX_STEP + 1 - START_STEP[level],
    target: QUALITY_TARGETS[level] + PROXY_MARGIN,
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
    // The palette PNG carries the metadata the pipeline keeps (ICC, EXIF, text): its chunks are reused.
    // No oxipng here: on near-lossless photos it never beat the level-9 deflate with per-row filters
    // (canon 1280×960, astronaut, chelsea at step 7: same bytes) and cost 1.6 CPU-s at 1.2 MP.
    if (score >= QUALITY_TARGETS[level]) return { quantised, step, score };
    step = Math.max(1, step - Math.max(1, Math.round(step / 4)));
  }
  return undefined;
}
