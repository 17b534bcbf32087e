/**
 * Pixels for the metric: decoding to 8-bit sRGB and the "proxy" the per-image quality search works on.
 *
 * The proxy is a mosaic of full-resolution tiles spread evenly over the image, not a downscaled copy: a
 * downscaled copy hides exactly the artefacts the search must see (8×8 blocking, ringing and smoothing are
 * pixel-scale), while tiles keep them at their real scale. Tiles are multiples of 16 px and sit on a
 * 16 px grid, so JPEG/WebP/AVIF block boundaries in the mosaic match those of the full image.
 */
import { readFile } from 'node:fs/promises';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { pngColourTags, type StoredSamples, taggedToSrgb } from './png-colour.ts';
import type { RgbImage } from './ssimulacra2.ts';

/**
 * Decodes any sharp input to interleaved 8-bit sRGB (RGBA when the image has alpha), colour-managed like
 * the reference metric: sharp converts an embedded ICC profile; a file or buffer that is a PNG with
 * gAMA/cHRM (which libvips ignores) is converted by png-colour.ts. A sharp pipeline carries no file bytes,
 * so its tags are the caller's business.
 */
export async function decodeRgb(input: string | Buffer | Sharp): Promise<RgbImage> {
  const bytes =
    typeof input === 'string' ? await readFile(input) : Buffer.isBuffer(input) ? input : undefined;
  const image = bytes === undefined ? (input as Sharp).clone() : sharp(bytes);
  const tags = bytes === undefined ? undefined : pngColourTags(bytes);
  if (tags !== undefined) return taggedToSrgb(await storedSamples(image), tags);
  const meta = await image.metadata();
  const { data, info } = await roundedTo8Bits(image, meta)
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return fromRaw(data, info.width, info.height, info.channels);
}

/**
 * libvips reduces 16-bit samples to 8 bits by truncation (v >> 8): half a level darker on average, which cost
 * a 16-bit render (julia-set.png) 7 SSIMULACRA 2 points against the reference tool's exact decode. Scaling by
 * 256/257 and adding half a step first makes that truncation a rounding of v / 257. Only for 16-bit inputs
 * without a profile: a profiled input is converted by libvips's colour management instead.
 */
export function roundedTo8Bits(pipeline: Sharp, meta: Metadata): Sharp {
  const deep = meta.depth === 'ushort' || meta.space === 'rgb16' || meta.space === 'grey16';
  return deep && meta.icc === undefined && meta.space !== 'cmyk' ? pipeline.linear(256 / 257, 128) : pipeline;
}

/** A tagged PNG's stored samples, at 16 bits when the file has them (png-colour.ts converts them). */
export async function storedSamples(image: Sharp): Promise<StoredSamples> {
  const meta = await image.metadata();
  if (meta.depth !== 'ushort') {
    const { data, info } = await image.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels, max: 255 };
  }
  // Without the explicit 16-bit interpretation sharp reduces to 8 bits before the cast.
  const { data, info } = await image
    .toColourspace(meta.space === 'grey16' ? 'grey16' : 'rgb16')
    .raw({ depth: 'ushort' })
    .toBuffer({ resolveWithObject: true });
  const samples = new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2);
  return { data: samples, width: info.width, height: info.height, channels: info.channels, max: 65535 };
}

/** Normalises a raw buffer of 1–4 channels to RGB or RGBA. */
export function fromRaw(data: Uint8Array, width: number, height: number, channels: number): RgbImage {
  if (channels === 3 || channels === 4) return { data, width, height, channels };
  const n = width * height;
  const hasAlpha = channels === 2;
  const out = new Uint8Array(n * (hasAlpha ? 4 : 3));
  const step = hasAlpha ? 4 : 3;
  for (let i = 0; i < n; i++) {
    const v = data[i * channels]!;
    out[i * step] = v;
    out[i * step + 1] = v;
    out[i * step + 2] = v;
    if (hasAlpha) out[i * step + 3] = data[i * channels + 1]!;
  }
  return { data: out, width, height, channels: hasAlpha ? 4 : 3 };
}

export interface MosaicOptions {
  /** Tile side in pixels (rounded down to a multiple of 16). */
  tile: number;
  /** Tiles per side of the grid (grid × grid tiles). */
  grid: number;
}

/** Default proxy: 3×3 tiles of 192 px → 576×576 (0.33 MP), about 100 ms per score. */
export const SEARCH_MOSAIC: MosaicOptions = { tile: 192, grid: 3 };

/**
 * Evenly spread full-resolution tiles stitched into one image. An image that is not larger than the
 * mosaic is returned whole. Searches encode the tiles one by one (`mosaicTiles`) and score the stitched
 * result: encoding the stitched mosaic would add seams the image does not have, and with 4:2:0 chroma the
 * seams bleed colour (Garden: the stitched proxy saturates at 83.5 at mozjpeg q97, the image scores 95.7).
 */
export function mosaic(image: RgbImage, options: MosaicOptions): RgbImage {
  const grid = mosaicTiles(image, options);
  return grid === undefined ? image : stitch(grid);
}

/** The tiles of a mosaic, row by row; undefined when the image is not larger than the mosaic. */
export interface TileGrid {
  tiles: RgbImage[];
  cols: number;
  rows: number;
}

/** Where the tiles of a mosaic sit in a width × height image; undefined when it is not larger. */
export function mosaicLayout(
  width: number,
  height: number,
  { tile: wanted, grid }: MosaicOptions,
): { tile: number; xs: number[]; ys: number[] } | undefined {
  const tile = Math.max(16, Math.floor(wanted / 16) * 16);
  const cols = Math.min(grid, Math.floor(width / tile));
  const rows = Math.min(grid, Math.floor(height / tile));
  if (cols < 1 || rows < 1 || width * height <= tile * tile * grid * grid * 1.5) return undefined;
  const origin = (index: number, count: number, size: number) => {
    // Centres of `count` equal bands, snapped to the 16 px block grid.
    const centre = ((index + 0.5) * size) / count - tile / 2;
    return Math.min(size - tile, Math.max(0, Math.floor(centre / 16) * 16));
  };
  const xs = Array.from({ length: cols }, (_, c) => origin(c, cols, width));
  const ys = Array.from({ length: rows }, (_, r) => origin(r, rows, height));
  return { tile, xs, ys };
}

export function mosaicTiles(image: RgbImage, options: MosaicOptions): TileGrid | undefined {
  const layout = mosaicLayout(image.width, image.height, options);
  if (layout === undefined) return undefined;
  const tiles = layout.ys.flatMap((y0) => cutTiles(image, y0, layout.xs, layout.tile));
  return { tiles, cols: layout.xs.length, rows: layout.ys.length };
}

/** The tiles at `xs` of the tile row starting at `y0` of `image`. */
function cutTiles(image: RgbImage, y0: number, xs: number[], tile: number): RgbImage[] {
  const { width, channels, data } = image;
  return xs.map((x0) => {
    const out = new Uint8Array(tile * tile * channels);
    for (let y = 0; y < tile; y++) {
      const src = ((y0 + y) * width + x0) * channels;
      out.set(data.subarray(src, src + tile * channels), y * tile * channels);
    }
    return { data: out, width: tile, height: tile, channels };
  });
}

/**
 * The mosaic of an encoded JPEG without holding the whole decoded image: one band per tile row, decoded by
 * libvips on its own (a JPEG is decoded top-down and stops at the band's end). 24 MP: ~15 MB instead of
 * 72 MB, for about 1.5 full decodes of CPU.
 */
export async function decodeJpegMosaic(jpeg: Buffer, options: MosaicOptions): Promise<RgbImage> {
  const { width = 0, height = 0 } = await sharp(jpeg).metadata();
  const layout = mosaicLayout(width, height, options);
  if (layout === undefined) return decodeRgb(jpeg);
  const tiles: RgbImage[] = [];
  for (const y0 of layout.ys) {
    // Sequential access: libvips streams the rows above the band instead of decoding the whole image
    // first (a band of a 49 MP PNG held 196 MB that way).
    const band = await decodeRgb(
      sharp(jpeg, { sequentialRead: true }).extract({ left: 0, top: y0, width, height: layout.tile }),
    );
    tiles.push(...cutTiles(band, 0, layout.xs, layout.tile));
  }
  return stitch({ tiles, cols: layout.xs.length, rows: layout.ys.length });
}

/**
 * Tiles of equal size side by side, row by row. Tiles need not be square: a small image is its own
 * one-tile proxy (640×480 and the like), and stitching it as a square once padded it with zero rows that
 * both sides of the score shared, so its proxy read ~2 points high (a 640×480 JPEG at ultra: 71.2 on the
 * proxy, 69.4 on the image).
 */
export function stitch({ tiles, cols, rows }: TileGrid): RgbImage {
  const { width: tileW, height: tileH, channels } = tiles[0]!;
  if (tiles.length === 1) return tiles[0]!;
  const outW = cols * tileW;
  const out = new Uint8Array(outW * rows * tileH * channels);
  tiles.forEach((t, i) => {
    const r = Math.floor(i / cols);
    const c = i % cols;
    for (let y = 0; y < tileH; y++) {
      const src = t.data.subarray(y * tileW * channels, (y + 1) * tileW * channels);
      out.set(src, ((r * tileH + y) * outW + c * tileW) * channels);
    }
  });
  return { data: out, width: outW, height: rows * tileH, channels };
}

/** A sharp pipeline over raw RGB(A) pixels, to encode a proxy. */
export function sharpFromRgb(image: RgbImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
}
