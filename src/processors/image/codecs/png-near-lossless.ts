/**
 * Near-lossless PNG: for photographs, where no 256-colour palette reaches the level's quality target, a
 * lossless PNG is several times larger than it needs to be. This encoder quantises the PNG *prediction
 * residuals* (the bytes the row filters produce) to multiples of a step, predicting from the already
 * reconstructed pixels, as lossy-PNG tools (pngloss, lossypng) and libwebp's near-lossless mode do. Every
 * pixel stays within step/2 of the original (no drift: predictions use reconstructed values), smooth areas
 * become runs of zero residuals, and deflate compresses them far better. The output is a standard 8-bit
 * PNG any decoder reads; the step is searched per image against the perceptual target (png-tuning.ts).
 *
 * Alpha is quantised with half the step: the metric composites on dark and light backgrounds and so sees
 * alpha errors, and some images (overlay wallpapers: black pixels, all content in alpha) have nothing else.
 */
import { deflateSync } from 'node:zlib';
import type { RgbImage } from '../../shared/metric/ssimulacra2.ts';
import { type PngColourType, writePng } from './png-chunks.ts';

/** PNG row filters (PNG spec §9.2), in their on-disk numbering. */
const FILTERS = [0, 1, 2, 3, 4] as const;

export interface NearLosslessResult {
  /** The pixels a decoder will see (same layout as the input). */
  reconstructed: RgbImage;
  /** Filter byte plus filtered bytes per row, ready for deflate. */
  filtered: Uint8Array;
  colourType: PngColourType;
  bytesPerPixel: number;
}

/**
 * Quantises the residuals of `input` (RGB or RGBA, 8-bit) with `step` (1 = lossless). A grey image (R = G
 * = B everywhere) is written as grey, and an alpha channel that is opaque everywhere is dropped: fewer
 * bytes per pixel for deflate. `reconstructed` then has the reduced layout (RGB, or RGBA for grey + alpha).
 */
export function quantiseResiduals(input: RgbImage, step: number): NearLosslessResult {
  const image = dropOpaqueAlpha(input);
  const grey = isGrey(image);
  const hasAlpha = image.channels === 4;
  const bpp = (grey ? 1 : 3) + (hasAlpha ? 1 : 0);
  const pixels = grey ? toGrey(image) : image.data;
  const stride = image.width * bpp;
  const filtered = new Uint8Array(image.height * (stride + 1));
  const recon = new Uint8Array(image.height * stride);
  const alphaIndex = hasAlpha ? bpp - 1 : -1;
  // Per-row candidates: reconstruction and filtered bytes for each filter, the cheapest is kept.
  const candRecon = FILTERS.map(() => new Uint8Array(stride));
  const candBytes = FILTERS.map(() => new Uint8Array(stride));
  const zeroRow = new Uint8Array(stride);
  for (let y = 0; y < image.height; y++) {
    const source = pixels.subarray(y * stride, (y + 1) * stride);
    const above = y === 0 ? zeroRow : recon.subarray((y - 1) * stride, y * stride);
    let best = 0;
    let bestCost = Number.POSITIVE_INFINITY;
    for (const filter of FILTERS) {
      const cost = quantiseRow(
        filter,
        source,
        above,
        candRecon[filter]!,
        candBytes[filter]!,
        bpp,
        step,
        alphaIndex,
      );
      if (cost < bestCost) {
        bestCost = cost;
        best = filter;
      }
    }
    recon.set(candRecon[best]!, y * stride);
    filtered[y * (stride + 1)] = best;
    filtered.set(candBytes[best]!, y * (stride + 1) + 1);
  }
  const reconstructed = grey ? fromGrey(recon, image, hasAlpha) : { ...image, data: recon };
  const colourType: PngColourType = grey ? (hasAlpha ? 4 : 0) : hasAlpha ? 6 : 2;
  return { reconstructed, filtered, colourType, bytesPerPixel: bpp };
}

/** The PNG file for a quantisation (deflate at level 9; oxipng may recompress it further). */
export function encodeNearLosslessPng(
  result: NearLosslessResult,
  ancillary: readonly Uint8Array[] = [],
): Buffer {
  // Level 9 costs ~10x level 6 in time for ~9 % fewer bytes on quantised photos: bytes win here.
  const idat = deflateSync(result.filtered, { level: 9, memLevel: 9 });
  return writePng({
    width: result.reconstructed.width,
    height: result.reconstructed.height,
    colourType: result.colourType,
    idat,
    ancillary,
  });
}

/**
 * The value each residual (x − predicted, −255..255, at index residual + 255) is rounded to for a step: the
 * nearest multiple of the step, halves away from zero. A table, so a byte costs a lookup and not a division
 * (quantiseRow runs per byte for each of the five filters: ~270 ms a megapixel before, as divisions).
 */
function roundingTable(step: number): Int16Array {
  const table = new Int16Array(511);
  const h = step >> 1;
  for (let residual = -255; residual <= 255; residual++) {
    const q = residual >= 0 ? Math.floor((residual + h) / step) : -Math.floor((h - residual) / step);
    table[residual + 255] = q * step;
  }
  return table;
}

const roundingTables = new Map<number, Int16Array>();
function roundingFor(step: number): Int16Array {
  let table = roundingTables.get(step);
  if (table === undefined) {
    table = roundingTable(step);
    roundingTables.set(step, table);
  }
  return table;
}

/**
 * One row with one filter; returns the row's cost (sum of |signed residual|, the usual heuristic for the
 * filter that deflates best).
 */
function quantiseRow(
  filter: number,
  source: Uint8Array,
  above: Uint8Array,
  recon: Uint8Array,
  bytes: Uint8Array,
  bpp: number,
  step: number,
  alphaIndex: number,
): number {
  let cost = 0;
  const alphaStep = Math.max(1, Math.ceil(step / 2));
  const colourRounding = roundingFor(step);
  const alphaRounding = roundingFor(alphaStep);
  // The channel of byte i (i % bpp), counted rather than divided.
  let channel = 0;
  for (let i = 0; i < source.length; i++) {
    const a = i >= bpp ? recon[i - bpp]! : 0;
    const b = above[i]!;
    const c = i >= bpp ? above[i - bpp]! : 0;
    const predicted = predict(filter, a, b, c);
    const x = source[i]!;
    const alpha = channel === alphaIndex;
    const s = alpha ? alphaStep : step;
    let value = predicted + (alpha ? alphaRounding : colourRounding)[x - predicted + 255]!;
    // Past 0 or 255: the next multiple inwards is within a step of x; failing that, x itself.
    if (value > 255) value -= s;
    else if (value < 0) value += s;
    if (value > 255 || value < 0) value = x;
    recon[i] = value;
    const byte = (value - predicted) & 0xff;
    bytes[i] = byte;
    cost += byte < 128 ? byte : 256 - byte;
    if (++channel === bpp) channel = 0;
  }
  return cost;
}

function predict(filter: number, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    default: {
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
  }
}

function dropOpaqueAlpha(image: RgbImage): RgbImage {
  if (image.channels !== 4) return image;
  const { data } = image;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return image;
  const rgb = new Uint8Array((data.length / 4) * 3);
  for (let i = 0, o = 0; i < data.length; i += 4) {
    rgb[o++] = data[i]!;
    rgb[o++] = data[i + 1]!;
    rgb[o++] = data[i + 2]!;
  }
  return { data: rgb, width: image.width, height: image.height, channels: 3 };
}

function isGrey(image: RgbImage): boolean {
  const { data, channels } = image;
  for (let i = 0; i < data.length; i += channels) {
    if (data[i] !== data[i + 1] || data[i] !== data[i + 2]) return false;
  }
  return true;
}

function toGrey(image: RgbImage): Uint8Array {
  const { data, channels } = image;
  const out = new Uint8Array(image.width * image.height * (channels - 2));
  for (let i = 0, o = 0; i < data.length; i += channels) {
    out[o++] = data[i]!;
    if (channels === 4) out[o++] = data[i + 3]!;
  }
  return out;
}

function fromGrey(grey: Uint8Array, like: RgbImage, hasAlpha: boolean): RgbImage {
  const data = new Uint8Array(like.data.length);
  const step = hasAlpha ? 2 : 1;
  for (let i = 0, o = 0; i < grey.length; i += step) {
    data[o++] = grey[i]!;
    data[o++] = grey[i]!;
    data[o++] = grey[i]!;
    if (hasAlpha) data[o++] = grey[i + 1]!;
  }
  return { ...like, data };
}
