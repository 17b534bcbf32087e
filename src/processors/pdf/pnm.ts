/**
 * Reads the binary PPM (P6) and PGM (P5) pages pdftoppm writes by default. Rendering to PNG costs
 * pdftoppm ten times the CPU of the page itself (0.44 s against 0.03 s for a Letter page at 96 dpi, all
 * of it zlib), and sharp's prebuilt libvips has no PNM reader, so pages are read here.
 */
import { readFile } from 'node:fs/promises';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { fromRaw } from '../shared/metric/pixels.ts';
import type { RgbImage } from '../shared/metric/ssimulacra2.ts';

export async function readPnm(path: string): Promise<RgbImage> {
  return parsePnm(await readFile(path));
}

export function parsePnm(bytes: Buffer): RgbImage {
  // Header: magic, width, height, maxval, separated by whitespace (comments are not written by Poppler).
  const fields: string[] = [];
  let at = 0;
  while (fields.length < 4 && at < bytes.length && at < 64) {
    while (at < bytes.length && /\s/.test(String.fromCharCode(bytes[at]!))) at++;
    let end = at;
    while (end < bytes.length && !/\s/.test(String.fromCharCode(bytes[end]!))) end++;
    fields.push(bytes.toString('latin1', at, end));
    at = end;
  }
  const [magic, w, h, max] = fields;
  const channels = magic === 'P6' ? 3 : magic === 'P5' ? 1 : 0;
  const width = Number(w);
  const height = Number(h);
  const data = bytes.subarray(at + 1);
  if (channels === 0 || max !== '255' || data.length < width * height * channels) {
    throw new UnprocessableInputError('A rendered page could not be read.');
  }
  return fromRaw(new Uint8Array(data.subarray(0, width * height * channels)), width, height, channels);
}
