/**
 * A bounds-checked BMP/DIB decoder (libvips has no BMP loader): 1/4/8-bit palettes, 16/24/32-bit,
 * BI_RGB, BI_BITFIELDS (and ALPHABITFIELDS), RLE8/RLE4, top-down and bottom-up rows. Every offset and
 * length is checked against the buffer, and the size is checked against the limits before any pixel
 * buffer is allocated. Also decodes the DIB entries of ICO/CUR files (XOR image + AND mask).
 */
import { UnprocessableInputError } from '../../../errors/catalog.ts';

export interface RgbaImage {
  width: number;
  height: number;
  /** width × height × 4 bytes, top row first. */
  data: Buffer;
  hasAlpha: boolean;
}

export interface DibHeader {
  headerSize: number;
  width: number;
  /** Rows of the image (for icons: without the AND mask). */
  height: number;
  topDown: boolean;
  bitCount: number;
  compression: number;
  colorsUsed: number;
  masks: [number, number, number, number] | undefined;
}

const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;
const MAX_SIDE = 1 << 16;

function corrupt(what: string): UnprocessableInputError {
  return new UnprocessableInputError(`The BMP image is corrupt or truncated: ${what}.`);
}

/** `BM` file: the DIB header and where its pixels start. */
export function readBmpFileHeader(file: Uint8Array): { dib: DibHeader; pixelOffset: number } {
  if (file.length < 26 || file[0] !== 0x42 || file[1] !== 0x4d) throw corrupt('no BM signature');
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const pixelOffset = view.getUint32(10, true);
  const dib = readDibHeader(file.subarray(14), false);
  return { dib, pixelOffset };
}

export function readDibHeader(dib: Uint8Array, icon: boolean): DibHeader {
  if (dib.length < 12) throw corrupt('header cut short');
  const view = new DataView(dib.buffer, dib.byteOffset, dib.byteLength);
  const headerSize = view.getUint32(0, true);
  if (headerSize < 12 || headerSize > dib.length) throw corrupt(`bad header size ${headerSize}`);
  let width: number;
  let rawHeight: number;
  let bitCount: number;
  let compression = BI_RGB;
  let colorsUsed = 0;
  if (headerSize === 12) {
    width = view.getUint16(4, true);
    rawHeight = view.getInt16(6, true);
    bitCount = view.getUint16(10, true);
  } else {
    if (headerSize < 40) throw corrupt(`bad header size ${headerSize}`);
    width = view.getInt32(4, true);
    rawHeight = view.getInt32(8, true);
    bitCount = view.getUint16(14, true);
    compression = view.getUint32(16, true);
    colorsUsed = view.getUint32(32, true);
  }
  const topDown = rawHeight < 0;
  let height = Math.abs(rawHeight);
  if (icon) height = Math.floor(height / 2);
  if (width <= 0 || height <= 0 || width > MAX_SIDE || height > MAX_SIDE) {
    throw corrupt(`impossible size ${width}×${rawHeight}`);
  }
  if (![1, 4, 8, 16, 24, 32].includes(bitCount)) throw corrupt(`unsupported bit depth ${bitCount}`);
  let masks: DibHeader['masks'];
  if (compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS) {
    if (bitCount !== 16 && bitCount !== 32) throw corrupt('bit fields need 16 or 32 bits per pixel');
    // The masks sit inside V2+ headers, or right after a 40-byte header.
    const withAlpha = compression === BI_ALPHABITFIELDS || headerSize >= 56;
    const end = 40 + (withAlpha ? 16 : 12);
    if (dib.length < end) throw corrupt('bit field masks cut short');
    masks = [
      view.getUint32(40, true),
      view.getUint32(44, true),
      view.getUint32(48, true),
      withAlpha ? view.getUint32(52, true) : 0,
    ];
  } else if (compression === BI_RLE8 && bitCount !== 8) {
    throw corrupt('RLE8 needs 8 bits per pixel');
  } else if (compression === BI_RLE4 && bitCount !== 4) {
    throw corrupt('RLE4 needs 4 bits per pixel');
  } else if (compression !== BI_RGB && compression !== BI_RLE8 && compression !== BI_RLE4) {
    throw corrupt(`unsupported compression ${compression}`);
  }
  return { headerSize, width, height, topDown, bitCount, compression, colorsUsed, masks };
}

/** Bytes after the header taken by bit-field masks that are not part of the header itself. */
function masksAfterHeader(h: DibHeader): number {
  if (h.masks === undefined || h.headerSize > 40) return 0;
  return h.compression === BI_ALPHABITFIELDS ? 16 : 12;
}

function readPalette(dib: Uint8Array, h: DibHeader): Uint8Array[] {
  if (h.bitCount > 8) return [];
  const max = 1 << h.bitCount;
  const count = h.colorsUsed > 0 && h.colorsUsed <= max ? h.colorsUsed : max;
  const entry = h.headerSize === 12 ? 3 : 4;
  const start = h.headerSize + masksAfterHeader(h);
  if (start + count * entry > dib.length) throw corrupt('palette cut short');
  const palette: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const o = start + i * entry;
    palette.push(Uint8Array.of(dib[o + 2] ?? 0, dib[o + 1] ?? 0, dib[o] ?? 0));
  }
  return palette;
}

/** Decodes a BMP file. */
export function decodeBmp(file: Uint8Array): RgbaImage {
  const { dib, pixelOffset } = readBmpFileHeader(file);
  if (pixelOffset > file.length) throw corrupt('pixel data offset past the end');
  return decodeDibPixels(file.subarray(14), dib, file.subarray(pixelOffset), false);
}

/** Decodes a DIB stored in an ICO/CUR entry: pixels follow the palette; an AND mask follows them. */
export function decodeIconDib(dib: Uint8Array): RgbaImage {
  const h = readDibHeader(dib, true);
  const paletteBytes = h.bitCount <= 8 ? (h.colorsUsed || 1 << h.bitCount) * 4 : 0;
  const start = h.headerSize + masksAfterHeader(h) + paletteBytes;
  if (start > dib.length) throw corrupt('icon pixel data cut short');
  return decodeDibPixels(dib, h, dib.subarray(start), true);
}

function decodeDibPixels(dib: Uint8Array, h: DibHeader, pixels: Uint8Array, icon: boolean): RgbaImage {
  const { width, height } = h;
  const palette = readPalette(dib, h);
  const out = Buffer.alloc(width * height * 4);
  const rowFor = (r: number) => (h.topDown ? r : height - 1 - r);
  let hasAlpha = false;
  if (h.compression === BI_RLE8 || h.compression === BI_RLE4) {
    decodeRle(pixels, h, palette, out, rowFor);
    // Pixels RLE skips over are transparent (as in browsers).
    hasAlpha = true;
  } else {
    const stride = Math.floor((width * h.bitCount + 31) / 32) * 4;
    if (stride * height > pixels.length) throw corrupt('pixel data cut short');
    const view = new DataView(pixels.buffer, pixels.byteOffset, pixels.byteLength);
    const fields = h.masks === undefined ? defaultMasks(h.bitCount) : h.masks;
    const shifts = fields.map(maskShape);
    let alphaSeen = false;
    for (let r = 0; r < height; r++) {
      const src = r * stride;
      const dst = rowFor(r) * width * 4;
      for (let x = 0; x < width; x++) {
        const o = dst + x * 4;
        if (h.bitCount <= 8) {
          const bitPos = x * h.bitCount;
          const byte = pixels[src + (bitPos >> 3)] ?? 0;
          const index = (byte >> (8 - h.bitCount - (bitPos & 7))) & ((1 << h.bitCount) - 1);
          const color = palette[index] ?? palette[0] ?? Uint8Array.of(0, 0, 0);
          out.set(color, o);
          out[o + 3] = 255;
        } else if (h.bitCount === 24) {
          const p = src + x * 3;
          out[o] = pixels[p + 2] ?? 0;
          out[o + 1] = pixels[p + 1] ?? 0;
          out[o + 2] = pixels[p] ?? 0;
          out[o + 3] = 255;
        } else {
          const v = h.bitCount === 16 ? view.getUint16(src + x * 2, true) : view.getUint32(src + x * 4, true);
          for (let c = 0; c < 4; c++) out[o + c] = extract(v, shifts[c]!);
          if (shifts[3]!.bits === 0) out[o + 3] = 255;
          else if (out[o + 3] !== 0) alphaSeen = true;
        }
      }
    }
    if (shifts[3]!.bits > 0) {
      // A 32-bit image whose alpha bytes are all zero uses them as padding, not transparency.
      if (alphaSeen) hasAlpha = true;
      else for (let i = 3; i < out.length; i += 4) out[i] = 255;
    }
  }
  if (icon && !hasAlpha) hasAlpha = applyAndMask(pixels, h, out);
  return { width, height, data: out, hasAlpha };
}

function defaultMasks(bitCount: number): [number, number, number, number] {
  if (bitCount === 16) return [0x7c00, 0x03e0, 0x001f, 0];
  // 32-bit BI_RGB: BGRX, where X is treated as alpha only if some pixel uses it.
  return [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000];
}

interface MaskShape {
  shift: number;
  bits: number;
}

function maskShape(mask: number): MaskShape {
  if (mask === 0) return { shift: 0, bits: 0 };
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  let bits = 0;
  while (shift + bits < 32 && ((mask >>> (shift + bits)) & 1) === 1) bits++;
  return { shift, bits };
}

function extract(value: number, { shift, bits }: MaskShape): number {
  if (bits === 0) return 0;
  const v = (value >>> shift) & ((2 ** bits - 1) >>> 0);
  return bits >= 8 ? v >>> (bits - 8) : Math.round((v * 255) / (2 ** bits - 1));
}

function decodeRle(
  data: Uint8Array,
  h: DibHeader,
  palette: Uint8Array[],
  out: Buffer,
  rowFor: (r: number) => number,
): void {
  const four = h.compression === BI_RLE4;
  let x = 0;
  let r = 0;
  let i = 0;
  const put = (index: number) => {
    if (x < h.width && r < h.height) {
      const o = (rowFor(r) * h.width + x) * 4;
      out.set(palette[index] ?? palette[0] ?? Uint8Array.of(0, 0, 0), o);
      out[o + 3] = 255;
    }
    x++;
  };
  while (r < h.height) {
    if (i + 1 >= data.length) throw corrupt('RLE data cut short');
    const count = data[i++]!;
    const value = data[i++]!;
    if (count > 0) {
      for (let k = 0; k < count; k++) put(four ? (k % 2 === 0 ? value >> 4 : value & 15) : value);
    } else if (value === 0) {
      x = 0;
      r++;
    } else if (value === 1) {
      return;
    } else if (value === 2) {
      if (i + 1 >= data.length) throw corrupt('RLE delta cut short');
      x += data[i++]!;
      r += data[i++]!;
    } else {
      const bytes = four ? Math.ceil(value / 2) : value;
      if (i + bytes > data.length) throw corrupt('RLE run cut short');
      for (let k = 0; k < value; k++) {
        const b = data[i + (four ? k >> 1 : k)]!;
        put(four ? (k % 2 === 0 ? b >> 4 : b & 15) : b);
      }
      i += bytes + (bytes % 2); // absolute runs are padded to 16 bits
    }
  }
}

/** ICO AND mask: 1 bit per pixel, rows padded to 32 bits, after the XOR pixels; 1 = transparent. */
function applyAndMask(pixels: Uint8Array, h: DibHeader, out: Buffer): boolean {
  const xorStride = Math.floor((h.width * h.bitCount + 31) / 32) * 4;
  const maskStride = Math.floor((h.width + 31) / 32) * 4;
  const start = xorStride * h.height;
  if (start + maskStride * h.height > pixels.length) return false; // no mask: opaque
  let any = false;
  for (let r = 0; r < h.height; r++) {
    const row = start + r * maskStride;
    const dst = (h.topDown ? r : h.height - 1 - r) * h.width * 4;
    for (let x = 0; x < h.width; x++) {
      if (((pixels[row + (x >> 3)] ?? 0) >> (7 - (x & 7))) & 1) {
        out[dst + x * 4 + 3] = 0;
        any = true;
      }
    }
  }
  return any;
}
