/**
 * Writing colour chunks into a PNG, to make colour-tagged inputs for the metric's reference pairs: libvips
 * writes neither gAMA nor cHRM, so the pair generator inserts them after IHDR itself (CRC from node:zlib).
 */
import { crc32 } from 'node:zlib';

/** PNG stores gAMA and cHRM values as integers times 100 000. */
const u32 = (value: number): Buffer => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(Math.round(value * 100_000));
  return out;
};

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** Chromaticities as PNG's cHRM orders them: white, red, green, blue (x, y each). */
export interface Chromaticities {
  white: [number, number];
  red: [number, number];
  green: [number, number];
  blue: [number, number];
}

/** `png` with gAMA (the encoding exponent, e.g. 1/2.2) and optionally cHRM inserted after IHDR. */
export function withColourChunks(png: Buffer, gamma: number, chromaticities?: Chromaticities): Buffer {
  const ihdrEnd = 8 + 8 + png.readUInt32BE(8) + 4;
  const extra = [chunk('gAMA', u32(gamma))];
  if (chromaticities !== undefined) {
    const { white, red, green, blue } = chromaticities;
    extra.push(chunk('cHRM', Buffer.concat([...white, ...red, ...green, ...blue].map(u32))));
  }
  return Buffer.concat([png.subarray(0, ihdrEnd), ...extra, png.subarray(ihdrEnd)]);
}

/** `png` without its chunks of the given types (to read a tagged file's stored values untransformed). */
export function withoutChunks(png: Buffer, types: string[]): Buffer {
  const parts = [png.subarray(0, 8)];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const end = at + 12 + length;
    if (!types.includes(png.toString('latin1', at + 4, at + 8))) parts.push(png.subarray(at, end));
    at = end;
  }
  return Buffer.concat(parts);
}

/** The chunk types of a PNG, in order. */
export function chunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  for (let at = 8; at < png.length; at += 12 + png.readUInt32BE(at))
    types.push(png.toString('latin1', at + 4, at + 8));
  return types;
}
