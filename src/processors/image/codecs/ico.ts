/**
 * ICO/CUR: reading the directory and one entry (PNG or DIB with its AND mask), and writing an icon of
 * PNG-compressed entries at the standard sizes.
 */
import { UnprocessableInputError } from '../../../errors/catalog.ts';
import { decodeIconDib, type RgbaImage, readDibHeader } from './bmp.ts';

export interface IconEntry {
  index: number;
  width: number;
  height: number;
  bitCount: number;
  offset: number;
  size: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function corrupt(what: string): UnprocessableInputError {
  return new UnprocessableInputError(`The icon is corrupt or truncated: ${what}.`);
}

export function readIconDirectory(file: Uint8Array): IconEntry[] {
  if (file.length < 6) throw corrupt('directory cut short');
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const type = view.getUint16(2, true);
  const count = view.getUint16(4, true);
  if (view.getUint16(0, true) !== 0 || (type !== 1 && type !== 2)) throw corrupt('not an ICO/CUR header');
  if (count === 0) throw corrupt('no images');
  if (6 + count * 16 > file.length) throw corrupt('directory cut short');
  const entries: IconEntry[] = [];
  for (let i = 0; i < count; i++) {
    const o = 6 + i * 16;
    const size = view.getUint32(o + 8, true);
    const offset = view.getUint32(o + 12, true);
    if (size < 12 || offset + size > file.length) throw corrupt(`entry ${i} lies outside the file`);
    const entry: IconEntry = {
      index: i,
      width: file[o] || 256,
      height: file[o + 1] || 256,
      // CUR stores the hotspot where ICO has planes/bit count; the DIB/PNG header says the truth.
      bitCount: type === 1 ? view.getUint16(o + 6, true) : 0,
      offset,
      size,
    };
    // The directory may lie (or say 0 for 256+); the image's own header is authoritative.
    const data = file.subarray(offset, offset + size);
    const real = isPng(data) ? pngSize(data) : dibSize(data);
    entries.push({ ...entry, ...real });
  }
  return entries;
}

function isPng(data: Uint8Array): boolean {
  return PNG_SIGNATURE.every((b, i) => data[i] === b);
}

function pngSize(data: Uint8Array): { width: number; height: number } {
  if (data.length < 24) throw corrupt('PNG entry cut short');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function dibSize(data: Uint8Array): { width: number; height: number; bitCount: number } {
  const h = readDibHeader(data, true);
  return { width: h.width, height: h.height, bitCount: h.bitCount };
}

/** The entry asked for, or the largest (most pixels, then most bits per pixel). */
export function pickIconEntry(entries: IconEntry[], index: number | undefined): IconEntry | undefined {
  if (index !== undefined) return entries[index];
  return entries.reduce((best, e) => {
    const a = e.width * e.height;
    const b = best.width * best.height;
    return a > b || (a === b && e.bitCount > best.bitCount) ? e : best;
  });
}

export type DecodedIconEntry = { png: Uint8Array } | { rgba: RgbaImage };

export function readIconEntry(file: Uint8Array, entry: IconEntry): DecodedIconEntry {
  const data = file.subarray(entry.offset, entry.offset + entry.size);
  return isPng(data) ? { png: data } : { rgba: decodeIconDib(data) };
}

/** Sizes written into an `.ico` output: the standard ones up to the image's size, at most 256. */
export const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256] as const;

export function iconSizesFor(width: number, height: number): number[] {
  const side = Math.min(256, Math.max(width, height));
  const sizes = ICON_SIZES.filter((s) => s <= side);
  return sizes.length > 0 ? sizes : [side];
}

/** Writes an ICO file of square PNG entries (Windows Vista+ and every browser read PNG entries). */
export function writeIcon(entries: { size: number; png: Uint8Array }[]): Buffer {
  const header = Buffer.alloc(6 + entries.length * 16);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(entries.length, 4);
  let offset = header.length;
  entries.forEach(({ size, png }, i) => {
    const o = 6 + i * 16;
    header[o] = size >= 256 ? 0 : size;
    header[o + 1] = size >= 256 ? 0 : size;
    header.writeUInt16LE(1, o + 4); // planes
    header.writeUInt16LE(32, o + 6); // bits per pixel
    header.writeUInt32LE(png.length, o + 8);
    header.writeUInt32LE(offset, o + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...entries.map((e) => e.png)]);
}
