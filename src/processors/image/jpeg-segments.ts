/**
 * Lossless JPEG metadata stripping: copies the compressed image data byte for byte and leaves out the
 * metadata segments (EXIF, XMP, ICC, comments, maker data) and anything after the end-of-image marker
 * (phones append depth maps and preview images there). Re-encoding would lose quality at every pass.
 */

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const APP0 = 0xe0; // JFIF: density and version, harmless and tiny
const APP14 = 0xee; // Adobe: tells decoders whether the channels are YCbCr or RGB/CMYK, so it must stay
const COM = 0xfe;

function isMetadataSegment(marker: number): boolean {
  return (marker >= 0xe1 && marker <= 0xef && marker !== APP14) || marker === COM;
}

/** Markers that stand alone, without a length field. */
function isStandalone(marker: number): boolean {
  return marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);
}

/**
 * Returns the JPEG without metadata segments, or undefined when the bytes do not parse as a complete
 * JPEG (the caller then re-encodes through the decoder, which reports corruption properly).
 */
export function stripJpegMetadata(input: Uint8Array): Buffer | undefined {
  return copyJpegSegments(input, false);
}

/**
 * Returns the JPEG up to and including its end-of-image marker, metadata kept, or undefined when the
 * bytes do not parse as a complete JPEG. A ZIP or HTML page appended after the EOI (a polyglot file)
 * is not part of the image and must not travel on.
 */
export function trimJpegTrailer(input: Uint8Array): Buffer | undefined {
  return copyJpegSegments(input, true);
}

function copyJpegSegments(input: Uint8Array, keepMetadata: boolean): Buffer | undefined {
  if (input.length < 4 || input[0] !== 0xff || input[1] !== SOI) return undefined;
  const parts: Uint8Array[] = [input.subarray(0, 2)];
  let pos = 2;
  let keptApp0 = false;
  while (pos < input.length) {
    // Markers may be preceded by any number of 0xFF fill bytes.
    if (input[pos] !== 0xff) return undefined;
    while (pos < input.length && input[pos] === 0xff) pos++;
    const marker = input[pos];
    if (marker === undefined) return undefined;
    const markerStart = pos - 1;
    pos++;
    if (marker === EOI) {
      parts.push(input.subarray(markerStart, pos));
      return Buffer.concat(parts);
    }
    if (isStandalone(marker)) {
      parts.push(input.subarray(markerStart, pos));
      continue;
    }
    if (pos + 2 > input.length) return undefined;
    const length = ((input[pos] ?? 0) << 8) | (input[pos + 1] ?? 0);
    const segmentEnd = pos + length;
    if (length < 2 || segmentEnd > input.length) return undefined;
    // A second JFIF/JFXX (thumbnail) APP0 is metadata too.
    const keep = keepMetadata || (!isMetadataSegment(marker) && !(marker === APP0 && keptApp0));
    if (marker === APP0) keptApp0 = true;
    if (marker === SOS) {
      const dataEnd = scanEntropyCodedData(input, segmentEnd);
      if (dataEnd === undefined) return undefined;
      parts.push(input.subarray(markerStart, dataEnd));
      pos = dataEnd;
      continue;
    }
    if (keep) parts.push(input.subarray(markerStart, segmentEnd));
    pos = segmentEnd;
  }
  return undefined;
}

/**
 * Finds where the entropy-coded data after a start-of-scan header ends: at the first marker that is not
 * a stuffed byte (FF 00), a restart marker (FF D0–D7) or fill. Progressive JPEGs continue with more
 * segments (tables, further scans) after it.
 */
function scanEntropyCodedData(input: Uint8Array, start: number): number | undefined {
  let pos = start;
  while (pos < input.length - 1) {
    if (input[pos] === 0xff) {
      const next = input[pos + 1] ?? 0;
      if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
        pos += 2;
        continue;
      }
      if (next !== 0xff) return pos;
    }
    pos++;
  }
  return undefined;
}
