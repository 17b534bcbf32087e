/**
 * The PNG container (PNG spec §5): writing a file from its IDAT stream, and lifting the ancillary chunks
 * (ICC profile, EXIF, text, physical size) out of a PNG sharp wrote, so an output encoded here keeps the
 * metadata the request asked sharp to keep.
 */
import { crc32 } from 'node:zlib';

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/** 0 grey, 2 RGB, 4 grey + alpha, 6 RGBA (8 bits per sample here). */
export type PngColourType = 0 | 2 | 4 | 6;

/**
 * Chunks that describe the image rather than one encoding of it. PLTE/tRNS (palette encodings), IHDR, IDAT
 * and IEND are rewritten by the encoder; unknown chunks are dropped.
 */
const PORTABLE_CHUNKS = new Set(['iCCP', 'sRGB', 'gAMA', 'cHRM', 'eXIf', 'tEXt', 'zTXt', 'iTXt', 'pHYs']);

export interface PngParts {
  width: number;
  height: number;
  colourType: PngColourType;
  idat: Uint8Array;
  /** Whole chunks (length, type, data, CRC) placed before IDAT. */
  ancillary?: readonly Uint8Array[];
}

export function writePng({ width, height, colourType, idat, ancillary = [] }: PngParts): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = colourType;
  // compression 0, filter method 0, no interlace: bytes 10–12 stay 0.
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    ...ancillary,
    chunk('IDAT', idat),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * The metadata chunks of `png`, whole, in file order (every one of them may precede IDAT, where
 * `writePng` puts them); empty when `png` is not a PNG.
 */
export function ancillaryChunks(png: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  if (png.length < 8 || !SIGNATURE.every((byte, i) => png[i] === byte)) return chunks;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let offset = 8;
  while (offset + 12 <= png.length) {
    const length = view.getUint32(offset);
    const end = offset + 12 + length;
    if (end > png.length) break;
    const type = String.fromCharCode(...png.subarray(offset + 4, offset + 8));
    if (type === 'IEND') break;
    if (PORTABLE_CHUNKS.has(type)) chunks.push(png.slice(offset, end));
    offset = end;
  }
  return chunks;
}
