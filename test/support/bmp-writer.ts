/**
 * Writes BMP and ICO files in every layout the decoder supports, from known pixels, so tests can compare
 * the decoded output with the exact pixels that went in. (No BMP encoder of every variant is installed.)
 */

export interface BmpSpec {
  width: number;
  height: number;
  bitCount: 1 | 4 | 8 | 16 | 24 | 32;
  /** 0 BI_RGB, 1 RLE8, 2 RLE4, 3 BITFIELDS */
  compression?: 0 | 1 | 2 | 3;
  topDown?: boolean;
  /** RGBA, top row first (for 16/24/32 bits). */
  rgba?: Uint8Array;
  /** Palette indices, top row first (for 1/4/8 bits). */
  indices?: Uint8Array;
  palette?: [number, number, number][];
  masks?: [number, number, number, number];
}

/** The DIB (BITMAPINFOHEADER + masks + palette) and the pixel rows. */
function dib(spec: BmpSpec, icon = false, andMask?: Uint8Array): { header: Buffer; pixels: Buffer } {
  const { width, height, bitCount } = spec;
  const compression = spec.compression ?? 0;
  const palette = spec.palette ?? [];
  const masks = compression === 3 ? (spec.masks ?? [0xf800, 0x07e0, 0x001f, 0]) : undefined;
  const header = Buffer.alloc(40 + (masks ? 12 : 0) + palette.length * 4);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(width, 4);
  const rows = icon ? height * 2 : height;
  header.writeInt32LE(spec.topDown ? -rows : rows, 8);
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(bitCount, 14);
  header.writeUInt32LE(compression, 16);
  header.writeUInt32LE(palette.length, 32);
  if (masks) for (let i = 0; i < 3; i++) header.writeUInt32LE(masks[i]! >>> 0, 40 + i * 4);
  for (const [i, [r, g, b]] of palette.entries()) header.set([b, g, r, 0], 40 + (masks ? 12 : 0) + i * 4);
  const order = (r: number) => (spec.topDown ? r : height - 1 - r);
  let pixels: Buffer;
  if (compression === 1 || compression === 2) {
    pixels = rle(spec, order);
  } else {
    const stride = Math.floor((width * bitCount + 31) / 32) * 4;
    pixels = Buffer.alloc(stride * height);
    for (let r = 0; r < height; r++) {
      const y = order(r);
      for (let x = 0; x < width; x++) {
        const o = r * stride;
        const i = y * width + x;
        if (bitCount <= 8) {
          const bit = x * bitCount;
          const value = spec.indices![i]!;
          pixels[o + (bit >> 3)]! |= value << (8 - bitCount - (bit & 7));
        } else {
          const [R, G, B, A] = spec.rgba!.subarray(i * 4, i * 4 + 4);
          if (bitCount === 24) pixels.set([B!, G!, R!], o + x * 3);
          else if (bitCount === 32) pixels.set([B!, G!, R!, A!], o + x * 4);
          else if (masks) pixels.writeUInt16LE(((R! >> 3) << 11) | ((G! >> 2) << 5) | (B! >> 3), o + x * 2);
          else pixels.writeUInt16LE(((R! >> 3) << 10) | ((G! >> 3) << 5) | (B! >> 3), o + x * 2);
        }
      }
    }
  }
  if (icon) {
    const maskStride = Math.floor((width + 31) / 32) * 4;
    const mask = Buffer.alloc(maskStride * height);
    for (let r = 0; r < height; r++) {
      for (let x = 0; x < width; x++) {
        if (andMask?.[order(r) * width + x]) mask[r * maskStride + (x >> 3)]! |= 0x80 >> (x & 7);
      }
    }
    pixels = Buffer.concat([pixels, mask]);
  }
  if (!icon) header.writeUInt32LE(pixels.length, 20);
  return { header, pixels };
}

/** Encoded-mode runs only (count, value), one end-of-line per row, end-of-bitmap at the end. */
function rle(spec: BmpSpec, order: (r: number) => number): Buffer {
  const out: number[] = [];
  const four = spec.compression === 2;
  for (let r = 0; r < spec.height; r++) {
    const y = order(r);
    let x = 0;
    while (x < spec.width) {
      const v = spec.indices![y * spec.width + x]!;
      let n = 1;
      while (x + n < spec.width && n < 255 && spec.indices![y * spec.width + x + n] === v) n++;
      out.push(n, four ? (v << 4) | v : v);
      x += n;
    }
    out.push(0, 0);
  }
  out.push(0, 1);
  return Buffer.from(out);
}

export function writeBmp(spec: BmpSpec): Buffer {
  const { header, pixels } = dib(spec);
  const file = Buffer.alloc(14);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(14 + header.length + pixels.length, 2);
  file.writeUInt32LE(14 + header.length, 10);
  return Buffer.concat([file, header, pixels]);
}

export type IconImage = { png: Buffer; size: number } | { bmp: BmpSpec; andMask?: Uint8Array };

export function writeIco(images: IconImage[]): Buffer {
  const blobs = images.map((image) => {
    if ('png' in image) return { data: image.png, w: image.size, h: image.size, bits: 32 };
    const { header, pixels } = dib(image.bmp, true, image.andMask);
    return {
      data: Buffer.concat([header, pixels]),
      w: image.bmp.width,
      h: image.bmp.height,
      bits: image.bmp.bitCount,
    };
  });
  const dir = Buffer.alloc(6 + blobs.length * 16);
  dir.writeUInt16LE(1, 2);
  dir.writeUInt16LE(blobs.length, 4);
  let offset = dir.length;
  blobs.forEach((b, i) => {
    const o = 6 + i * 16;
    dir[o] = b.w >= 256 ? 0 : b.w;
    dir[o + 1] = b.h >= 256 ? 0 : b.h;
    dir.writeUInt16LE(1, o + 4);
    dir.writeUInt16LE(b.bits, o + 6);
    dir.writeUInt32LE(b.data.length, o + 8);
    dir.writeUInt32LE(offset, o + 12);
    offset += b.data.length;
  });
  return Buffer.concat([dir, ...blobs.map((b) => b.data)]);
}
