/**
 * Output settings per format and compression level. These are first settings chosen from the sharp
 * documentation and timings on a 2-core machine; a later issue tunes them against a perceptual metric.
 */
import type { Sharp } from 'sharp';
import type { CompressionLevel, RasterFormat } from './params.ts';

type LossyLevel = Exclude<CompressionLevel, 'lossless'>;

/** mozjpeg (trellis quantisation, progressive scans) gives ~25 % smaller files than libjpeg at equal quality. */
const JPEG_QUALITY: Record<LossyLevel, number> = { medium: 82, high: 75, ultra: 62 };
/** Used only when a lossless request must re-encode a JPEG (rotation, resize, colour conversion). */
const JPEG_NEAR_LOSSLESS_QUALITY = 95;

/** libimagequant picks the fewest palette colours that reach this quality (0–100). */
const PNG_PALETTE_QUALITY: Record<LossyLevel, number> = { medium: 90, high: 80, ultra: 65 };

const WEBP: Record<LossyLevel, { quality: number; effort: number }> = {
  medium: { quality: 80, effort: 4 },
  high: { quality: 75, effort: 5 },
  ultra: { quality: 60, effort: 6 },
};

/** AVIF effort stays at 2: effort 4 takes 10–30 s per 12 MP photo on two cores, effort 2 about 2–5 s. */
const AVIF_EFFORT = 2;
const AVIF_QUALITY: Record<LossyLevel, number> = { medium: 60, high: 50, ultra: 40 };

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
}

/** Sets the output format and its options on `pipeline` (sharp encodes when the output is written). */
export function applyEncoder(
  pipeline: Sharp,
  format: RasterFormat,
  { level, hasAlpha }: EncodeContext,
): Sharp {
  switch (format) {
    case 'jpeg':
      // JPEG has no alpha: transparent areas become white (as in browsers on a page), not black.
      if (hasAlpha) pipeline = pipeline.flatten({ background: '#ffffff' });
      return level === 'lossless'
        ? pipeline.jpeg({ mozjpeg: true, quality: JPEG_NEAR_LOSSLESS_QUALITY, chromaSubsampling: '4:4:4' })
        : pipeline.jpeg({ mozjpeg: true, quality: JPEG_QUALITY[level] });
    case 'png':
      return level === 'lossless'
        ? pipeline.png({ palette: false, compressionLevel: 9, adaptiveFiltering: true })
        : pipeline.png({
            palette: true,
            quality: PNG_PALETTE_QUALITY[level],
            effort: 10,
            compressionLevel: 9,
          });
    case 'webp':
      return level === 'lossless'
        ? pipeline.webp({ lossless: true, effort: 6 })
        : pipeline.webp({ ...WEBP[level], alphaQuality: 90, smartSubsample: true });
    case 'avif':
      return level === 'lossless'
        ? pipeline.avif({ lossless: true, effort: AVIF_EFFORT })
        : pipeline.avif({ quality: AVIF_QUALITY[level], effort: AVIF_EFFORT });
    case 'gif':
      return pipeline.gif({ ...GIF[level], reuse: true });
    case 'tiff':
      // libtiff's JPEG compression has no alpha channel support: deflate keeps transparency.
      return level === 'lossless' || hasAlpha
        ? pipeline.tiff({ compression: 'deflate', predictor: 'horizontal' })
        : pipeline.tiff({ compression: 'jpeg', quality: JPEG_QUALITY[level] });
  }
}

/** Formats whose sharp encoder writes every frame of an animation. */
export function canAnimate(format: RasterFormat): boolean {
  return format === 'webp' || format === 'gif';
}

/** Formats that keep an alpha channel. */
export function canHoldAlpha(format: RasterFormat): boolean {
  return format !== 'jpeg';
}
