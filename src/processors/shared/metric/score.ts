/**
 * Scoring a whole output against its reference, for tests and the benchmark: both decoded to 8-bit sRGB,
 * then SSIMULACRA 2 on a 3×3 mosaic of 512 px full-resolution tiles (2.4 MP; the whole image when it is
 * not much larger). On the corpus this mosaic reads within ±0.2 of the full-image score (docs/benchmarks.md)
 * at a fraction of the cost on 12–24 MP photos.
 */
import type { Sharp } from 'sharp';
import { decodeJpegMosaic, decodeRgb, type MosaicOptions, mosaic, mosaicLayout } from './pixels.ts';
import { type PreparedReference, prepareReferenceTs } from './prepared-reference.ts';
import { type DroppedPixels, releasePixels, watchPixels } from './release-pixels.ts';
import { type RgbImage, ssimulacra2 } from './ssimulacra2.ts';
import {
  nativeSsimulacra2LoadError,
  prepareReferenceNative,
  ssimulacra2Native,
} from './ssimulacra2-native.ts';

export const SCORE_MOSAIC: MosaicOptions = { tile: 512, grid: 3 };

/** Pixels a whole output of width × height is scored on: the wide mosaic, or the image when not larger. */
export function scoredPixels(width: number, height: number): number {
  const layout = mosaicLayout(width, height, SCORE_MOSAIC);
  return layout === undefined ? width * height : layout.tile ** 2 * layout.xs.length * layout.ys.length;
}

/** JPEG outputs of alpha inputs are flattened on white: score against the flattened reference. */
export async function scoreOutput(
  reference: string | Buffer | Sharp,
  output: string | Buffer,
  options: { flattenReference?: boolean } = {},
): Promise<number> {
  const ref = await decodeRgb(
    typeof reference === 'string' || Buffer.isBuffer(reference)
      ? reference
      : options.flattenReference
        ? reference.clone().flatten({ background: '#ffffff' })
        : reference,
  );
  const out = await decodeRgb(output);
  return scorePixels(ref, out);
}

let warnedFallback = false;

/**
 * SSIMULACRA 2 by the native addon, off the event loop, when it is loaded; otherwise by the TypeScript
 * reference on this thread (the same number, slower and blocking), with one warning saying why.
 */
export async function measureSsimulacra2(reference: RgbImage, distorted: RgbImage): Promise<number> {
  if (nativeSsimulacra2LoadError() === undefined) return ssimulacra2Native(reference, distorted);
  warnFallback();
  return ssimulacra2(reference, distorted);
}

/**
 * `reference` prepared for several scores (prepared-reference.ts): by the addon when it is loaded,
 * otherwise by the TypeScript port, with the fallback's warning. `prepared.score(distorted)` is
 * `measureSsimulacra2(...alignChannels(reference, distorted))` bit for bit. The caller releases it.
 */
export async function prepareReference(reference: RgbImage): Promise<PreparedReference> {
  if (nativeSsimulacra2LoadError() === undefined) return prepareReferenceNative(reference);
  warnFallback();
  return prepareReferenceTs(reference);
}

function warnFallback(): void {
  const loadError = nativeSsimulacra2LoadError();
  if (loadError !== undefined && !warnedFallback) {
    warnedFallback = true;
    const why = loadError.message.split('\n')[0];
    const message = `native SSIMULACRA 2 not loaded (${why}); scoring in TypeScript on the event loop`;
    process.emitWarning(`${message}. Run scripts/setup.sh to build it.`, {
      code: 'PRESSO_SSIMULACRA2_FALLBACK',
    });
  }
}

export function scorePixels(reference: RgbImage, output: RgbImage, tiles = SCORE_MOSAIC): Promise<number> {
  const [a, b] = alignChannels(reference, output);
  return measureSsimulacra2(mosaic(a, tiles), mosaic(b, tiles));
}

/**
 * `scorePixels` for a caller that keeps only the wide mosaic of its reference (`mosaic(reference,
 * SCORE_MOSAIC)`, 7 MB) instead of the whole decoded image (72 MB at 24 MP) while it encodes and decodes.
 */
export function scoreAgainstMosaic(referenceMosaic: RgbImage, output: RgbImage): Promise<number> {
  const [a, b] = alignChannels(referenceMosaic, mosaic(output, SCORE_MOSAIC));
  return measureSsimulacra2(a, b);
}

/** `scoreAgainstMosaic` of an encoded output; a JPEG or PNG is decoded band by band (shared/metric/pixels.ts). */
export async function scoreEncodedAgainstMosaic(
  referenceMosaic: RgbImage,
  output: Buffer,
  format: string,
): Promise<number> {
  const banded = format === 'jpeg' || format === 'png';
  if (banded) return scoreAgainstMosaic(referenceMosaic, await decodeJpegMosaic(output, SCORE_MOSAIC));
  const { outputMosaic, dropped } = await decodedMosaic(output);
  // The whole decoded output is freed before scoring, not held beside the metric's planes.
  await releasePixels(dropped);
  return measureSsimulacra2(...alignChannels(referenceMosaic, outputMosaic));
}

/** The wide mosaic of an encoded output decoded whole; the decode is unreachable once this returns. */
async function decodedMosaic(output: Buffer): Promise<{ outputMosaic: RgbImage; dropped: DroppedPixels }> {
  const decoded = await decodeRgb(output);
  return { outputMosaic: mosaic(decoded, SCORE_MOSAIC), dropped: watchPixels(decoded.data) };
}

/** An opaque image may come back with or without an alpha channel: give both the same layout. */
export function alignChannels(a: RgbImage, b: RgbImage): [RgbImage, RgbImage] {
  if (a.channels === b.channels) return [a, b];
  return a.channels === 4 ? [a, addAlpha(b)] : [addAlpha(a), b];
}

function addAlpha(image: RgbImage): RgbImage {
  const n = image.width * image.height;
  const out = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    out[i * 4] = image.data[i * 3]!;
    out[i * 4 + 1] = image.data[i * 3 + 1]!;
    out[i * 4 + 2] = image.data[i * 3 + 2]!;
    out[i * 4 + 3] = 255;
  }
  return { data: out, width: image.width, height: image.height, channels: 4 };
}
