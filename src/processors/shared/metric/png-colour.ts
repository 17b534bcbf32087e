/**
 * PNG colour tags that libvips ignores: `gAMA` (transfer curve) and `cHRM` (primaries and white point).
 *
 * The reference SSIMULACRA 2 colour-manages them (libjxl reads them into the image's colour encoding and
 * converts to linear sRGB before scoring); libvips decodes such a PNG's stored values as if they were sRGB.
 * A PNG tagged gamma 1/2.2 with Adobe RGB primaries therefore scored 80.6 on Presso against 58.8 on the
 * reference for a JPEG that kept the stored values (the colour shift the reference sees), so the metric's
 * decode converts these files to sRGB here, following the reference's rules:
 *  - an `sRGB` or `iCCP` chunk wins over gAMA/cHRM (sharp already honours an embedded ICC profile);
 *  - gAMA alone means sRGB primaries with a pure power curve, linear = stored^(1/gamma);
 *  - cHRM alone keeps the sRGB curve;
 *  - a white point other than D65 is adapted with Bradford, as the ICC conversion the reference uses does.
 */
import type { RgbImage } from './ssimulacra2.ts';

/** Chromaticities (x, y): white, red, green, blue. */
type Chromaticities = [number, number][];

export interface PngColourTags {
  /** Encoding exponent of gAMA (stored = linear^gamma), when present. */
  gamma?: number;
  chromaticities?: Chromaticities;
  /** An sRGB or iCCP chunk: the file is sRGB or carries a profile, gAMA/cHRM do not apply. */
  overridden: boolean;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The colour tags of a PNG file; undefined when `bytes` is not a PNG or has neither gAMA nor cHRM. */
export function pngColourTags(bytes: Uint8Array): PngColourTags | undefined {
  if (bytes.length < 8 || SIGNATURE.some((b, i) => bytes[i] !== b)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tags: PngColourTags = { overridden: false };
  const read = (at: number) => view.getUint32(at) / 100_000;
  // Colour chunks must come before the first IDAT (PNG 1.2, 4.2.2).
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = at + 8;
    if (type === 'IDAT' || data + length > bytes.length) break;
    if (type === 'gAMA' && length === 4 && view.getUint32(data) > 0) tags.gamma = read(data);
    if (type === 'cHRM' && length === 32)
      tags.chromaticities = [0, 1, 2, 3].map((i) => [read(data + 8 * i), read(data + 8 * i + 4)]);
    if (type === 'sRGB' || type === 'iCCP') tags.overridden = true;
    at = data + length + 4;
  }
  if (tags.overridden || (tags.gamma === undefined && tags.chromaticities === undefined)) return undefined;
  return tags;
}

type Matrix = number[]; // 3×3, row-major
/** A Matrix's entries, for destructuring. */
type Entries = [number, number, number, number, number, number, number, number, number];

const mul = (a: Matrix, b: Matrix): Matrix =>
  [0, 1, 2].flatMap((r) =>
    [0, 1, 2].map((c) => a[r * 3]! * b[c]! + a[r * 3 + 1]! * b[3 + c]! + a[r * 3 + 2]! * b[6 + c]!),
  );
const apply = (m: Matrix, v: number[]): number[] =>
  [0, 1, 2].map((r) => m[r * 3]! * v[0]! + m[r * 3 + 1]! * v[1]! + m[r * 3 + 2]! * v[2]!);

function invert(m: Matrix): Matrix {
  const [a, b, c, d, e, f, g, h, i] = m as Entries;
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  return [
    e * i - f * h,
    c * h - b * i,
    b * f - c * e,
    f * g - d * i,
    a * i - c * g,
    c * d - a * f,
    d * h - e * g,
    b * g - a * h,
    a * e - b * d,
  ].map((v) => v / det);
}

const xyz = ([x, y]: [number, number]) => [x / y, 1, (1 - x - y) / y];

/** Linear RGB → XYZ for the given primaries and white (the standard derivation, SMPTE RP 177). */
export function rgbToXyz([white, ...primaries]: Chromaticities): Matrix {
  const p = primaries.map((c) => xyz(c));
  const columns = [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => p[c]![r]!));
  const scale = apply(invert(columns), xyz(white!));
  return columns.map((v, i) => v * scale[i % 3]!);
}

const BRADFORD: Matrix = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296];
export const D65: [number, number] = [0.3127, 0.329];
export const SRGB: Chromaticities = [D65, [0.64, 0.33], [0.3, 0.6], [0.15, 0.06]];

/** Bradford adaptation of XYZ from one white to another. */
export function adapt(from: [number, number], to: [number, number]): Matrix {
  const [s0, s1, s2] = apply(BRADFORD, xyz(from));
  const [d0, d1, d2] = apply(BRADFORD, xyz(to));
  const scale = [d0! / s0!, 0, 0, 0, d1! / s1!, 0, 0, 0, d2! / s2!];
  return mul(invert(BRADFORD), mul(scale, BRADFORD));
}

const srgbToLinear = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const linearToSrgb = (v: number) => (v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055);

/** Stored samples of a PNG: 8-bit, or 16-bit when the file is (`max` 255 or 65535), 1–4 channels. */
export interface StoredSamples {
  data: Uint8Array | Uint16Array;
  width: number;
  height: number;
  channels: number;
  max: 255 | 65535;
}

/**
 * `image` (its stored values) converted from the tagged colour space to 8-bit sRGB; alpha is kept. A 16-bit
 * file is converted from its 16-bit samples and rounded to 8 bits once, at the end, as the reference tool does
 * (it decodes to float): rounding the stored values to 8 bits first, then converting, bands the shadows of a
 * gamma-2.2 file.
 */
export function taggedToSrgb(image: StoredSamples, tags: PngColourTags): RgbImage {
  const { width, height } = image;
  const { data, channels } = convertTagged(image, tags, 255);
  return { data: data as Uint8Array, width, height, channels };
}

/** The same conversion to 16-bit sRGB samples (RGB or RGBA), for a 16-bit input the pipeline keeps deep. */
export function taggedToSrgb16(
  image: StoredSamples,
  tags: PngColourTags,
): { data: Uint16Array; channels: number } {
  const { data, channels } = convertTagged(image, tags, 65535);
  return { data: data as Uint16Array, channels };
}

function convertTagged(image: StoredSamples, tags: PngColourTags, outMax: 255 | 65535) {
  const source = tags.chromaticities ?? SRGB;
  const toLinear = tags.gamma === undefined ? srgbToLinear : (v: number) => v ** (1 / (tags.gamma as number));
  const matrix = mul(invert(rgbToXyz(SRGB)), mul(adapt(source[0]!, D65), rgbToXyz(source)));
  const { data, width, height, channels, max } = image;
  const decode = Float64Array.from({ length: max + 1 }, (_, i) => toLinear(i / max));
  const grey = channels < 3;
  const hasAlpha = channels === 2 || channels === 4;
  const step: 3 | 4 = hasAlpha ? 4 : 3;
  const out = outMax === 255 ? new Uint8Array(width * height * step) : new Uint16Array(width * height * step);
  const encode = (v: number) => Math.round(outMax * linearToSrgb(Math.min(1, Math.max(0, v))));
  const [m0, m1, m2, m3, m4, m5, m6, m7, m8] = matrix as Entries;
  for (let i = 0, o = 0; i < data.length; i += channels, o += step) {
    const r = decode[data[i]!]!;
    const g = grey ? r : decode[data[i + 1]!]!;
    const b = grey ? r : decode[data[i + 2]!]!;
    out[o] = encode(m0 * r + m1 * g + m2 * b);
    out[o + 1] = encode(m3 * r + m4 * g + m5 * b);
    out[o + 2] = encode(m6 * r + m7 * g + m8 * b);
    if (hasAlpha) out[o + 3] = Math.round((data[i + channels - 1]! * outMax) / max);
  }
  return { data: out, channels: step };
}
