/**
 * The `metadata` object of a result: what the INPUT image is (geometry, frames, colour) and what its
 * EXIF says, flattened to readable JSON values. Binary blobs (maker notes, thumbnails) are left out.
 */
import exifReader from 'exif-reader';
import type { Metadata } from 'sharp';
import { iccDescription } from './icc.ts';
import { withoutTrailingNuls } from './metadata-text.ts';

export interface ImageMetadata {
  /** Displayed size, after the EXIF orientation is applied (the output's pixels are oriented too). */
  width: number;
  height: number;
  format: string;
  frames: number;
  hasAlpha: boolean;
  space: string | undefined;
  /** EXIF orientation of the input (1–8); 1 when absent. */
  orientation: number;
  /** Pixels per inch, when the file says. */
  density: number | undefined;
  /** Bits per channel of the decoded pixels (8, 16, 32 …). */
  bitDepth: number | undefined;
  /** Embedded colour profile: presence and its description. */
  icc: { present: boolean; description?: string };
  iptc: { present: boolean };
  xmp: { present: boolean };
  exif: Record<string, ExifValue>;
  gps?: { latitude: number; longitude: number };
  [key: string]: unknown;
}

type ExifValue = string | number | boolean | number[];

/** EXIF directory pointers and layout fields say where other tags are, not anything about the image. */
const LAYOUT_TAGS = new Set([
  'ExifTag',
  'GPSTag',
  'InteroperabilityTag',
  'JPEGInterchangeFormat',
  'JPEGInterchangeFormatLength',
  'StripOffsets',
  'StripByteCounts',
  'TileOffsets',
  'TileByteCounts',
]);

/** Longer numeric arrays are binary data decoded as numbers (vendor blobs), not readable values. */
const MAX_ARRAY_LENGTH = 16;

export function describeImage(meta: Metadata, format: string): ImageMetadata {
  const exif = readExif(meta.exif);
  const result: ImageMetadata = {
    width: meta.autoOrient?.width ?? meta.width,
    height: meta.autoOrient?.height ?? meta.pageHeight ?? meta.height,
    format,
    frames: meta.pages ?? 1,
    hasAlpha: meta.hasAlpha,
    space: meta.space,
    orientation: meta.orientation ?? 1,
    density: meta.density,
    bitDepth: BIT_DEPTH[meta.depth ?? ''],
    icc: iccFacts(meta.icc),
    iptc: { present: meta.iptc !== undefined && meta.iptc.length > 0 },
    xmp: { present: meta.xmp !== undefined && meta.xmp.length > 0 },
    exif: exif === undefined ? {} : flattenExif(exif),
  };
  const gps = exif === undefined ? undefined : gpsPosition(exif.GPSInfo);
  if (gps !== undefined) result.gps = gps;
  return result;
}

const BIT_DEPTH: Record<string, number> = {
  uchar: 8,
  char: 8,
  ushort: 16,
  short: 16,
  uint: 32,
  int: 32,
  float: 32,
  double: 64,
};

function iccFacts(icc: Buffer | undefined): ImageMetadata['icc'] {
  if (icc === undefined || icc.length === 0) return { present: false };
  const description = iccDescription(icc);
  return description === undefined ? { present: true } : { present: true, description };
}

type ExifTags = ReturnType<typeof exifReader>;

function readExif(buffer: Buffer | undefined): ExifTags | undefined {
  if (buffer === undefined || buffer.length === 0) return undefined;
  try {
    return exifReader(buffer);
  } catch {
    // Broken EXIF must not fail the job: the pixels are still fine.
    return undefined;
  }
}

/** Image (IFD0) and Photo (EXIF IFD) tags in one object; on a name clash the Image tag wins. */
function flattenExif(exif: ExifTags): Record<string, ExifValue> {
  const flat: Record<string, ExifValue> = {};
  for (const group of [exif.Photo, exif.Image]) {
    if (group === undefined) continue;
    for (const [name, raw] of Object.entries(group)) {
      // Tags exif-reader has no name for come back as numeric keys: meaningless to a reader.
      if (/^\d+$/.test(name) || LAYOUT_TAGS.has(name)) continue;
      const value = readableValue(raw);
      if (value !== undefined) flat[name] = value;
    }
  }
  return flat;
}

function readableValue(raw: unknown): ExifValue | undefined {
  if (typeof raw === 'string') return withoutTrailingNuls(raw).trim();
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'boolean') return raw;
  // EXIF times carry no zone; exif-reader parses them as UTC, so print them without one.
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? undefined : raw.toISOString().slice(0, 19);
  if (Array.isArray(raw) && raw.length <= MAX_ARRAY_LENGTH && raw.every((n) => typeof n === 'number')) {
    return raw as number[];
  }
  return undefined; // Buffers, typed arrays, long vendor arrays
}

function gpsPosition(
  gps: Record<string, unknown> | undefined,
): { latitude: number; longitude: number } | undefined {
  if (gps === undefined) return undefined;
  const latitude = toDegrees(gps.GPSLatitude, gps.GPSLatitudeRef, 'S');
  const longitude = toDegrees(gps.GPSLongitude, gps.GPSLongitudeRef, 'W');
  if (latitude === undefined || longitude === undefined) return undefined;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return undefined;
  return { latitude, longitude };
}

/** EXIF stores positions as [degrees, minutes, seconds] plus a hemisphere letter. */
function toDegrees(value: unknown, ref: unknown, negativeRef: string): number | undefined {
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    !value.every((n) => typeof n === 'number' && Number.isFinite(n))
  ) {
    return undefined;
  }
  const [degrees, minutes, seconds] = value as [number, number, number];
  const decimal = degrees + minutes / 60 + seconds / 3600;
  const sign = typeof ref === 'string' && ref.trim().toUpperCase() === negativeRef ? -1 : 1;
  return Math.round(sign * decimal * 1e7) / 1e7;
}
