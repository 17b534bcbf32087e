/**
 * Output settings per format and compression level. Lossy levels are defined by perceptual targets
 * (quality/targets.ts); the encoder quality that reaches the target is searched per image on a proxy
 * (quality/search.ts), starting from a default tuned on the corpus (docs/benchmarks.md). PNG has its own
 * candidates (palette, near-lossless, lossless) and oxipng: png-tuning.ts.
 */
import type { Sharp } from 'sharp';
import { bufferedOutput, type EncodedOutput } from './encoded-output.ts';
import type { CompressionLevel, RasterFormat } from './params.ts';
import { LOSSLESS_PNG, losslessPng, paletteOptions, tunedPng } from './png-tuning.ts';
import { checkedSearch } from './quality/checked-search.ts';
import {
  decodeRgb,
  mosaic,
  mosaicTiles,
  SEARCH_MOSAIC,
  sharpFromRgb,
  stitch,
  type TileGrid,
} from './quality/pixels.ts';
import { measureSsimulacra2, SCORE_MOSAIC, scoreEncodedAgainstMosaic } from './quality/score.ts';
import { searchQuality } from './quality/search.ts';
import type { RgbImage } from './quality/ssimulacra2.ts';
import { type LossyLevel, PROXY_MARGIN, QUALITY_TARGETS, SEARCH_LIMITS } from './quality/targets.ts';

/**
 * mozjpeg (trellis quantisation, progressive scans with optimised scan script and Huffman tables, the
 * ImageMagick quantisation table) gives ~25 % smaller files than libjpeg-turbo at equal quality. `quality`
 * is the starting point of the search (the corpus median that meets the target) and the setting used when
 * the search is off; `min`/`max` bound the search. 4:2:0 chroma won on the corpus at every level.
 */
const JPEG: Record<LossyLevel, { quality: number; min: number; max: number }> = {
  medium: { quality: 83, min: 60, max: 97 },
  high: { quality: 78, min: 45, max: 95 },
  ultra: { quality: 62, min: 30, max: 90 },
};
/** Used only when a lossless request must re-encode a JPEG (rotation, resize, colour conversion). */
const JPEG_NEAR_LOSSLESS_QUALITY = 95;

/** WebP: effort 4 (5–6 cost 1.5–2× the time for ~1–2 %), sharp-YUV (smartSubsample) keeps colour edges. */
const WEBP_EFFORT = 4;
const WEBP: Record<LossyLevel, { quality: number; min: number; max: number }> = {
  medium: { quality: 93, min: 70, max: 100 },
  high: { quality: 90, min: 60, max: 98 },
  ultra: { quality: 83, min: 40, max: 95 },
};

/** AVIF effort stays at 2: effort 4 takes 10–30 s per 12 MP photo on two cores, effort 2 about 2–5 s. */
const AVIF_EFFORT = 2;
const AVIF: Record<LossyLevel, { quality: number; min: number; max: number }> = {
  medium: { quality: 76, min: 40, max: 95 },
  high: { quality: 64, min: 30, max: 92 },
  ultra: { quality: 47, min: 20, max: 85 },
};

/**
 * GIF: reusing the input palette matters most (a fresh palette per frame tripled a 24-frame GIF); the
 * lossy levels then tolerate small errors so barely changed pixels are taken from the previous frame
 * (inter-frame) and frames share palettes (inter-palette).
 */
const GIF: Record<
  CompressionLevel,
  { effort: number; interFrameMaxError: number; interPaletteMaxError: number }
> = {
  medium: { effort: 7, interFrameMaxError: 4, interPaletteMaxError: 3 },
  high: { effort: 8, interFrameMaxError: 8, interPaletteMaxError: 8 },
  ultra: { effort: 10, interFrameMaxError: 16, interPaletteMaxError: 16 },
  lossless: { effort: 10, interFrameMaxError: 0, interPaletteMaxError: 0 },
};

export interface EncodeContext {
  level: CompressionLevel;
  hasAlpha: boolean;
  /** Encoder quality for the lossy JPEG/WebP/AVIF/TIFF settings; default: the level's tuned value. */
  quality?: number;
}

/** Sets the output format and its options on `pipeline` (sharp encodes when the output is written). */
export function applyEncoder(
  pipeline: Sharp,
  format: RasterFormat,
  { level, hasAlpha, quality }: EncodeContext,
): Sharp {
  switch (format) {
    case 'jpeg':
      // JPEG has no alpha: transparent areas become white (as in browsers on a page), not black.
      if (hasAlpha) pipeline = pipeline.flatten({ background: '#ffffff' });
      return level === 'lossless'
        ? pipeline.jpeg({ mozjpeg: true, quality: JPEG_NEAR_LOSSLESS_QUALITY, chromaSubsampling: '4:4:4' })
        : pipeline.jpeg({ mozjpeg: true, quality: quality ?? JPEG[level].quality });
    case 'png':
      return level === 'lossless' ? pipeline.png(LOSSLESS_PNG) : pipeline.png(paletteOptions(level));
    case 'webp':
      return level === 'lossless'
        ? pipeline.webp({ lossless: true, effort: 6 })
        : pipeline.webp({
            quality: quality ?? WEBP[level].quality,
            effort: WEBP_EFFORT,
            alphaQuality: 90,
            smartSubsample: true,
          });
    case 'avif':
      return level === 'lossless'
        ? pipeline.avif({ lossless: true, effort: AVIF_EFFORT })
        : pipeline.avif({ quality: quality ?? AVIF[level].quality, effort: AVIF_EFFORT });
    case 'gif':
      return pipeline.gif({ ...GIF[level], reuse: true });
    case 'tiff':
      // libtiff's JPEG compression has no alpha channel support: deflate keeps transparency.
      return level === 'lossless' || hasAlpha
        ? pipeline.tiff({ compression: 'deflate', predictor: 'horizontal' })
        : pipeline.tiff({ compression: 'jpeg', quality: quality ?? JPEG[level].quality });
  }
}

export interface TunedEncodeContext extends EncodeContext {
  /** The pipeline decodes several frames (no search on animations). */
  animated?: boolean;
  /**
   * Aborted when the job is cancelled or its time budget runs out: the search stops at its next trial
   * instead of running its 6-12 encodes to the end (it was not bounded by the deadline at all before).
   */
  signal?: AbortSignal;
}

/** What the search did, for the benchmark and tests. */
export interface TuningReport {
  quality?: number;
  trials: number;
  proxyScore?: number;
  /** Score of the output itself (wide mosaic), where it was measured. */
  outputScore?: number;
  fallback?: 'near-lossless' | 'lossless';
}

/**
 * Like `applyEncoder`, but for lossy JPEG/WebP/AVIF it first searches the lowest quality that meets the
 * level's target on a proxy of this image; PNG takes the smallest of its candidates that meets the target
 * (png-tuning.ts). When the search cannot run (any decode error), the level's tuned
 * defaults are used and the error surfaces when the output is written.
 */
export async function applyTunedEncoder(
  pipeline: Sharp,
  format: RasterFormat,
  context: TunedEncodeContext,
  report: TuningReport = { trials: 0 },
): Promise<EncodedOutput> {
  const { level } = context;
  if (format === 'png' && !context.animated && context.quality === undefined) {
    try {
      return level === 'lossless'
        ? await losslessPng(pipeline.clone())
        : await tunedPng(pipeline, level, report, context.signal);
    } catch {
      // A stopped job stops here; anything else falls through to the plain encoder, which reports
      // decode problems where the caller expects them.
      context.signal?.throwIfAborted();
    }
  }
  if (level === 'lossless' || context.animated || context.quality !== undefined) {
    return applyEncoder(pipeline, format, context);
  }
  try {
    if (format === 'jpeg' || format === 'webp' || format === 'avif') {
      return await tunedLossy(pipeline, format, { ...context, level }, report);
    }
  } catch {
    // As above: a stopped job stops, a decode problem surfaces from the plain encoder.
    context.signal?.throwIfAborted();
  }
  return applyEncoder(pipeline, format, context);
}

const RANGES = { jpeg: JPEG, webp: WEBP, avif: AVIF } as const;

type LossyFormat = 'jpeg' | 'webp' | 'avif';

/** Pixels the output will be scored against (JPEG has no alpha: flattened on white first). */
async function referencePixels(pipeline: Sharp, flatten: boolean): Promise<RgbImage> {
  const source = flatten ? pipeline.clone().flatten({ background: '#ffffff' }) : pipeline.clone();
  return decodeRgb(source);
}

/**
 * The proxy search alone (no output check): the lowest quality whose proxy meets the level's target plus
 * the proxy margin. For bench/images/tune.ts, which picks the tuned starting qualities.
 */
export async function searchFormatQuality(
  pipeline: Sharp,
  format: LossyFormat,
  level: LossyLevel,
  hasAlpha: boolean,
  report: TuningReport = { trials: 0 },
): Promise<number> {
  const proxy = proxyTiles(await referencePixels(pipeline, format === 'jpeg' && hasAlpha));
  const result = await searchOnProxy(proxy, format, level, QUALITY_TARGETS[level] + PROXY_MARGIN, undefined);
  report.quality = result.quality;
  report.trials += result.trials.length;
  report.proxyScore = result.score;
  return result.quality;
}

function searchOnProxy(
  proxy: TileGrid,
  format: LossyFormat,
  level: LossyLevel,
  aim: number,
  signal: AbortSignal | undefined,
) {
  const range = RANGES[format][level];
  const reference = stitch(proxy);
  return searchQuality({
    signal,
    min: range.min,
    max: range.max,
    start: range.quality,
    target: aim,
    ...SEARCH_LIMITS,
    trial: async (quality) => {
      const decoded = await Promise.all(
        proxy.tiles.map(async (tile) => {
          const encoded = await applyEncoder(sharpFromRgb(tile), format, {
            level,
            hasAlpha: tile.channels === 4,
            quality,
          }).toBuffer();
          return decodeRgb(encoded);
        }),
      );
      return measureSsimulacra2(reference, stitch({ ...proxy, tiles: decoded }));
    },
  });
}

function referenceTiles(reference: RgbImage): { proxy: TileGrid; wide: RgbImage } {
  return { proxy: proxyTiles(reference), wide: mosaic(reference, SCORE_MOSAIC) };
}

/** The search proxy as tiles (the whole image as one tile when it is small). */
function proxyTiles(reference: RgbImage): TileGrid {
  return mosaicTiles(reference, SEARCH_MOSAIC) ?? { tiles: [reference], cols: 1, rows: 1 };
}

/** The proxy search with a check of the real output (quality/checked-search.ts). */
async function tunedLossy(
  pipeline: Sharp,
  format: LossyFormat,
  context: TunedEncodeContext & { level: LossyLevel },
  report: TuningReport,
): Promise<EncodedOutput> {
  const { level, signal } = context;
  // Only the tiles are kept: the whole decoded reference would sit in memory beside the encoder's.
  const { proxy, wide } = referenceTiles(
    await referencePixels(pipeline, format === 'jpeg' && context.hasAlpha),
  );
  const result = await checkedSearch({
    target: QUALITY_TARGETS[level],
    signal,
    search: (aim) => searchOnProxy(proxy, format, level, aim, signal),
    produce: async (quality) => {
      const buffer = await applyEncoder(pipeline.clone(), format, { ...context, quality }).toBuffer();
      return {
        output: buffer,
        size: buffer.length,
        score: await scoreEncodedAgainstMosaic(wide, buffer, format),
      };
    },
  });
  report.trials += result.trials;
  report.quality = result.quality;
  report.proxyScore = result.proxyScore;
  report.outputScore = result.score;
  return bufferedOutput(result.output);
}

/** Formats whose sharp encoder writes every frame of an animation. */
export function canAnimate(format: RasterFormat): boolean {
  return format === 'webp' || format === 'gif';
}

/** Formats that keep an alpha channel. */
export function canHoldAlpha(format: RasterFormat): boolean {
  return format !== 'jpeg';
}
