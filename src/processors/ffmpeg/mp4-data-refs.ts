/**
 * MP4 and QuickTime files can keep their samples in other files: a track's data reference box (`dref`)
 * lists where its samples live, and an entry without the self-contained flag names another file or URL
 * (`url `, `urn `, a Mac `alis` record). ffmpeg never opens one here (the mov demuxer's `enable_drefs`
 * off, the `file` protocol only, demuxers.ts): it reads such a track from this file's own offsets, which
 * hold nothing, and a lossless remux answered an empty MP4 with 200. So these files are refused before
 * ffmpeg sees them.
 *
 * ffmpeg reads a `dref` anywhere inside the first `moov` (any box it descends into), and inflates a
 * compressed `cmov` first; so every `dref` box in that `moov` is checked, compressed or not, without
 * following the box tree. The scan is linear in the header's size, and bounded in boxes and references.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';

/** Boxes before the movie header: ftyp, free, wide, an mdat or two; far more is not a file to read. */
const MAX_BOXES_BEFORE_MOOV = 4096;
/** `dref` boxes in one movie header: one per track (32 streams at most) and a few in metadata. */
const MAX_DATA_REFERENCE_BOXES = 1024;
/** A `dref` box read whole up to this; its entries are a few bytes each. */
const MAX_DREF_BYTES = 64 * 1024;
/** A compressed movie header inflated up to this (ffmpeg's own cap on `cmov`'s size is larger). */
const MAX_INFLATED_MOOV_BYTES = 64 * 1024 * 1024;
const SCAN_CHUNK = 1024 * 1024;

/** Reads `length` bytes at `at` (fewer at the end) from the file or an inflated header. */
type ReadAt = (at: number, length: number) => Promise<Buffer>;

/**
 * Why the file cannot be read on its own, for the refusal's message ("its samples are in another file
 * (...)", or why its movie header could not be checked); undefined when every data reference of its
 * movie header is self-contained, or it has none.
 */
export async function externalSampleReference(path: string): Promise<string | undefined> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const readAt = fileReader(handle);
    const moov = await findMovieHeader(readAt, size);
    if (typeof moov === 'string') return moov;
    return moov === undefined ? undefined : await scanMovieHeader(readAt, moov.start, moov.end, 0);
  } finally {
    await handle.close();
  }
}

function fileReader(handle: FileHandle): ReadAt {
  return async (at, length) => {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, at);
    return buffer.subarray(0, bytesRead);
  };
}

interface BoxHeader {
  type: string;
  /** Where the box's content starts and ends. */
  start: number;
  end: number;
}

/** The box at `at`, or undefined when none can be read there (as ffmpeg stops on a size below 8). */
async function boxAt(readAt: ReadAt, at: number, limit: number): Promise<BoxHeader | undefined> {
  const head = await readAt(at, 16);
  if (head.length < 8) return undefined;
  const size32 = head.readUInt32BE(0);
  const type = head.toString('latin1', 4, 8);
  if (size32 === 0) return { type, start: at + 8, end: limit }; // to the end of the file
  if (size32 === 1) {
    if (head.length < 16) return undefined;
    const size = Number(head.readBigUInt64BE(8));
    return size < 16 ? undefined : { type, start: at + 16, end: Math.min(limit, at + size) };
  }
  return size32 < 8 ? undefined : { type, start: at + 8, end: Math.min(limit, at + size32) };
}

/** The first top-level `moov` (ffmpeg skips later ones), undefined without one, a reason when unreadable. */
async function findMovieHeader(readAt: ReadAt, size: number): Promise<BoxHeader | string | undefined> {
  let at = 0;
  for (let boxes = 0; at < size; boxes++) {
    if (boxes >= MAX_BOXES_BEFORE_MOOV)
      return `it has more than ${MAX_BOXES_BEFORE_MOOV} boxes before its movie header`;
    const box = await boxAt(readAt, at, size);
    if (box === undefined) return undefined;
    if (box.type === 'moov') return box;
    at = box.end;
  }
  return undefined;
}

/** Every `dref` (and compressed `cmov`) in the movie header's bytes, found by their type code. */
async function scanMovieHeader(
  readAt: ReadAt,
  start: number,
  end: number,
  depth: number,
): Promise<string | undefined> {
  let seen = 0;
  for (let chunkAt = start; chunkAt < end; chunkAt += SCAN_CHUNK - 3) {
    const chunk = await readAt(chunkAt, Math.min(SCAN_CHUNK, end - chunkAt));
    for (const code of ['dref', 'cmov']) {
      for (let i = chunk.indexOf(code, 0, 'latin1'); i !== -1; i = chunk.indexOf(code, i + 1, 'latin1')) {
        const boxStart = chunkAt + i - 4;
        if (boxStart < start) continue;
        if (++seen > MAX_DATA_REFERENCE_BOXES) return 'its movie header holds too many data references';
        const box = await boxAt(readAt, boxStart, end);
        if (box === undefined || box.type !== code) continue;
        const reason =
          code === 'dref' ? await readDataReferences(readAt, box) : await scanCompressed(readAt, box, depth);
        if (reason !== undefined) return reason;
      }
    }
    if (chunk.length < SCAN_CHUNK) break;
  }
  return undefined;
}

/**
 * A `dref` box: version and flags, an entry count, then entries of size, type, version and flags (bit 0:
 * the data is in this file) and, when not, a location: a URL, a URN or an alias record.
 */
async function readDataReferences(readAt: ReadAt, box: BoxHeader): Promise<string | undefined> {
  const body = await readAt(box.start, Math.min(MAX_DREF_BYTES, box.end - box.start));
  if (body.length < 8) return undefined;
  const count = body.readUInt32BE(4);
  let at = 8;
  for (let entry = 0; entry < count && at + 12 <= body.length; entry++) {
    const size = body.readUInt32BE(at);
    if (size < 12) return undefined; // ffmpeg stops reading the box here
    const type = body.toString('latin1', at + 4, at + 8);
    const selfContained = (body.readUInt32BE(at + 8) & 1) === 1;
    const location = body.subarray(at + 12, Math.min(body.length, at + size));
    if (!selfContained && location.some((byte) => byte !== 0)) {
      const named = type === 'url ' || type === 'urn ' ? `: ${printable(location)}` : '';
      return `its samples are in another file, named by a data reference ('${type.trim()}'${named})`;
    }
    at += size;
  }
  return undefined;
}

/** A compressed movie header (`cmov`: `dcom` names zlib, `cmvd` holds the size and the deflated `moov`). */
async function scanCompressed(readAt: ReadAt, box: BoxHeader, depth: number): Promise<string | undefined> {
  if (depth > 0) return 'its compressed movie header holds another';
  let cmvd: BoxHeader | undefined;
  for (let at = box.start; at < box.end; ) {
    const child = await boxAt(readAt, at, box.end);
    if (child === undefined) break;
    if (child.type === 'cmvd') cmvd = child;
    at = child.end;
  }
  if (cmvd === undefined || cmvd.end - cmvd.start <= 4) return undefined;
  const compressed = await readAt(
    cmvd.start + 4,
    Math.min(cmvd.end - cmvd.start - 4, MAX_INFLATED_MOOV_BYTES),
  );
  let moov: Buffer;
  try {
    moov = inflateSync(compressed, { maxOutputLength: MAX_INFLATED_MOOV_BYTES });
  } catch {
    return 'its compressed movie header cannot be read';
  }
  const inMemory: ReadAt = async (at, length) => moov.subarray(at, at + length);
  return scanMovieHeader(inMemory, 0, moov.length, depth + 1);
}

/** A location as a message can show it: printable ASCII, at most 200 characters. */
function printable(bytes: Buffer): string {
  const text = bytes.toString('latin1').replace(/[^\x20-\x7e]/g, '');
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
