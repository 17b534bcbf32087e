/**
 * Output settings per format and compression level. Lossy levels are defined by perceptual targets
 * (quality/targets.ts); the encoder quality that reaches the target is searched per image on a proxy
 * (quality/search.ts, lossy-tuning.ts; tuned-encoder.ts picks the search per format), starting from a
 * default tuned on the corpus (docs/benchmarks.md). PNG has its own candidates (palette, near-lossless,
 * lossless) and oxipng: png-tuning.ts.
 */
import type { Sharp } from 'sharp';
import type { CompressionLevel, RasterFormat } from './params.ts';
import { LOSSLESS_PNG, paletteOptions } from './png-tuning.ts';
import type { LossyLevel } from './quality/targets.ts';

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

/**
 * WebP: effort 6 without sharp-YUV. At equal SSIMULACRA 2 against cwebp (its defaults), measured on the
 * MATE Aqua and Blinds photos at q70/80/88 (docs/benchmarks.md): effort 4 + sharp-YUV 0.96–1.22 × cwebp's
 * bytes, effort 6 alone 0.82–0.99; sharp-YUV's RGB→YUV conversion also cost more CPU (0.7–1.4 s per
 * encode at 2–4 MP) than effort 6 does (0.5–0.9 s).
 */
const WEBP_EFFORT = 6;
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
  /** JPEG chroma at full resolution (4:4:4) instead of 4:2:0: the checked search's last resort. */
  fullChroma?: boolean;
  /**
   * WebP near-lossless preprocessing level (0–100, lower is stronger), the checked search's last resort
   * for WebP, which has no lossy 4:4:4: `quality` is ignored then.
   */
  nearLossless?: number;
}

/** Sets the output format and its options on `pipeline` (sharp encodes when the output is written). */
export function applyEncoder(
  pipeline: Sharp,
  format: RasterFormat,
  { level, hasAlpha, quality, fullChroma, nearLossless }: EncodeContext,
): Sharp {
  switch (format) {
    case 'jpeg':
      // JPEG has no alpha: transparent areas become white (as in browsers on a page), not black.
      if (hasAlpha) pipeline = pipeline.flatten({ background: '#ffffff' });
      return level === 'lossless'
        ? pipeline.jpeg({ mozjpeg: true, quality: JPEG_NEAR_LOSSLESS_QUALITY, chromaSubsampling: '4:4:4' })
        : pipeline.jpeg({
            mozjpeg: true,
            quality: quality ?? JPEG[level].quality,
            ...(fullChroma ? { chromaSubsampling: '4:4:4' } : {}),
          });
    case 'png':
      return level === 'lossless' ? pipeline.png(LOSSLESS_PNG) : pipeline.png(paletteOptions(level));
    case 'webp':
      if (nearLossless !== undefined) {
        return pipeline.webp({ nearLossless: true, quality: nearLossless, effort: WEBP_EFFORT });
      }
      return level === 'lossless'
        ? pipeline.webp({ lossless: true, effort: 6 })
        : pipeline.webp({
            quality: quality ?? WEBP[level].quality,
            effort: WEBP_EFFORT,
            alphaQuality: 90,
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

/** Quality ranges the per-image search explores (lossy-tuning.ts). */
export const LOSSY_RANGES = { jpeg: JPEG, webp: WEBP, avif: AVIF } as const;

export type LossyFormat = keyof typeof LOSSY_RANGES;

/** Formats whose sharp encoder writes every frame of an animation. */
export function canAnimate(format: RasterFormat): boolean {
  return format === 'webp' || format === 'gif';
}

/** Formats that keep an alpha channel. */
export function canHoldAlpha(format: RasterFormat): boolean {
  return format !== 'jpeg';
}
