/**
 * What one whole-image encode holds beyond the service's own memory, estimated from the pixels it writes:
 * the encoder's working set, or for a lossy output the decode of that output for its score when that is
 * larger. Above `PRESSO_IMAGE_ENCODE_IN_PROCESS` the encode runs in a child process (encode-process.ts).
 *
 * Bytes per pixel measured on a 7000×7000 PNG (49 MP) encoded with the service's settings in a bare Node
 * process (docs/benchmarks.md, "One 49 MP PNG through `presso serve`"), rounded up: mozjpeg 295 MB lossy
 * and 580 MB at 4:4:4 (the lossless level, the checked search's last resort); libwebp 238 MB lossy, 469 MB
 * lossless (near-lossless is its lossless coder), and the decode of the WebP output for its score 380 MB
 * (libvips decodes the whole frame, then sharp copies it out); libvips' GIF writer 487 MB; libheif/aom
 * (AVIF, lossy and lossless alike) 961 MB; TIFF ~40 MB (libtiff writes strip by strip).
 */
import type { EncodeContext } from './encoders.ts';
import { SCORE_BYTES_PER_PIXEL } from './limits.ts';
import type { RasterFormat, ResizeRequest } from './params.ts';
import { BAND_PIXELS, WHOLE_SCORE_PIXELS } from './quality/whole-score.ts';

const BYTES_PER_PIXEL = {
  jpeg: 6.1,
  jpegFullChroma: 11.9,
  webp: 7.8,
  webpLossless: 9.6,
  gif: 10,
  avif: 19.7,
  tiff: 1,
} as const;

/** Formats whose whole-image encode may go to the child; PNG (its own candidates and oxipng) stays here. */
export type ChildFormat = Exclude<RasterFormat, 'png'>;
export const isChildFormat = (format: RasterFormat): format is ChildFormat => format !== 'png';

/** Bytes one encode of `pixels` to `format` with `options` holds (with its score decode, where scored). */
export function encodeWorkingSet(format: ChildFormat, options: EncodeContext, pixels: number): number {
  const lossless = options.level === 'lossless';
  switch (format) {
    case 'jpeg':
      return (
        pixels * (lossless || options.fullChroma ? BYTES_PER_PIXEL.jpegFullChroma : BYTES_PER_PIXEL.jpeg)
      );
    case 'webp':
      return (
        pixels *
        (lossless || options.nearLossless !== undefined ? BYTES_PER_PIXEL.webpLossless : BYTES_PER_PIXEL.webp)
      );
    case 'gif':
      return pixels * BYTES_PER_PIXEL.gif;
    case 'avif':
      return pixels * BYTES_PER_PIXEL.avif;
    case 'tiff':
      return pixels * BYTES_PER_PIXEL.tiff;
  }
}

/**
 * Bytes the whole-image score of a lossy output holds after its encode (quality/whole-score.ts): the
 * reference and the output decoded (up to 4 bytes a pixel each) and the metric's planes of one call (the
 * whole image, or one band of a larger one). Encode and score come one after the other: a scored encode
 * holds the larger of the two.
 */
export function scoreWorkingSet(pixels: number): number {
  const scored = pixels <= WHOLE_SCORE_PIXELS ? pixels : BAND_PIXELS;
  return pixels * 8 + scored * SCORE_BYTES_PER_PIXEL;
}

/**
 * Pixels the output will have, at most: the input's (every frame when the output keeps the animation),
 * or the crop's, then the resize's: its box for `exact` and `pad`, the image scaled to fit it otherwise
 * (not above 1 without `upscale`).
 */
export function outputPixels(
  meta: { width?: number; height?: number; pageHeight?: number },
  frames: number,
  geometry: { crop?: { width: number; height: number } | undefined; resize: ResizeRequest | undefined },
): number {
  const width = geometry.crop?.width ?? meta.width ?? 0;
  const height = geometry.crop?.height ?? meta.pageHeight ?? meta.height ?? 0;
  const { resize } = geometry;
  let pixels = width * height;
  if (resize !== undefined && pixels > 0) {
    if (resize.mode === 'exact' || resize.mode === 'pad') {
      pixels = resize.width * resize.height;
    } else {
      const scales = [resize.width, resize.height].map((side, i) =>
        side === undefined ? Number.POSITIVE_INFINITY : side / (i === 0 ? width : height),
      );
      const scale = Math.min(...scales);
      const applied = resize.upscale ? scale : Math.min(scale, 1);
      if (Number.isFinite(applied)) pixels = Math.ceil(width * applied) * Math.ceil(height * applied);
    }
  }
  return pixels * Math.max(1, frames);
}
