/**
 * Hostile media for the security tests, made by ffmpeg and then edited in place: headers that lie about
 * the duration (Matroska's Duration element and DURATION tags, MP4's mvhd/tkhd/mdhd, AVI's frame
 * counts), streams whose frames grow past their header's size, and MP4 files whose samples live in
 * another file (data references, plain or in a compressed movie header). Each is a few hundred KB at most.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { ffmpeg } from './media.ts';

/** A moving pattern of `seconds` at 5 frames a second: few frames, so long clips stay small and fast. */
function pattern(size: string, seconds: number): string[] {
  return ['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=5:duration=${seconds}`];
}

/** `seconds` of a tiny moving picture (and a tone when `audio`) in `container`, encoded as given. */
export function longClip(path: string, seconds: number, encode: string[], audio = false): string {
  longClips([path], seconds, encode, audio);
  return path;
}

/** The same clip as longClip in each of `paths` (their containers), written by one ffmpeg run. */
export function longClips(paths: string[], seconds: number, encode: string[], audio = false): string[] {
  const tone = audio ? ['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}:sample_rate=8000`] : [];
  ffmpeg([...pattern('64x48', seconds), ...tone, ...paths.flatMap((path) => [...encode, '-shortest', path])]);
  return paths;
}

/** Matroska with its Segment Duration (a float in ms, element 0x4489) and DURATION tags saying `seconds`. */
export function lieMatroskaDuration(path: string, seconds: number): void {
  const bytes = readFileSync(path);
  const at = bytes.indexOf(Buffer.from([0x44, 0x89]));
  if (at < 0) throw new Error('no Duration element');
  const size = bytes[at + 2];
  if (size === 0x88) bytes.writeDoubleBE(seconds * 1000, at + 3);
  else if (size === 0x84) bytes.writeFloatBE(seconds * 1000, at + 3);
  else throw new Error(`unexpected Duration size ${size}`);
  // Track DURATION tags, "HH:MM:SS.nnnnnnnnn": same length, so nothing moves.
  const stamp = new Date(seconds * 1000).toISOString().slice(11, 19);
  const text = bytes.toString('latin1').replace(/\d\d:\d\d:\d\d\.\d{9}/g, `${stamp}.000000000`);
  writeFileSync(path, Buffer.from(text, 'latin1'));
}

interface Box {
  type: string;
  /** Offset of the box's header and its total size. */
  at: number;
  size: number;
}

function boxesIn(bytes: Buffer, start: number, end: number): Box[] {
  const boxes: Box[] = [];
  for (let at = start; at + 8 <= end; ) {
    const size = bytes.readUInt32BE(at);
    if (size < 8) break;
    boxes.push({ type: bytes.toString('latin1', at + 4, at + 8), at, size });
    at += size;
  }
  return boxes;
}

const MP4_CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'dinf', 'stbl', 'edts']);

/** Every box under `moov`, depth first. */
function movieBoxes(bytes: Buffer, start = 0, end = bytes.length): Box[] {
  return boxesIn(bytes, start, end).flatMap((box) =>
    MP4_CONTAINERS.has(box.type) ? [box, ...movieBoxes(bytes, box.at + 8, box.at + box.size)] : [box],
  );
}

/** MP4 whose movie, track and media headers (version 0) all say `seconds`; the samples stay as they are. */
export function lieMp4Duration(path: string, seconds: number): void {
  const bytes = readFileSync(path);
  let movieScale = 0;
  for (const box of movieBoxes(bytes)) {
    if (!['mvhd', 'mdhd', 'tkhd'].includes(box.type)) continue;
    if (bytes[box.at + 8] !== 0) throw new Error(`${box.type} is not version 0`);
    if (box.type === 'tkhd') bytes.writeUInt32BE(Math.round(seconds * movieScale), box.at + 28);
    else {
      const scale = bytes.readUInt32BE(box.at + 20);
      if (box.type === 'mvhd') movieScale = scale;
      bytes.writeUInt32BE(Math.round(seconds * scale), box.at + 24);
    }
  }
  writeFileSync(path, bytes);
}

/** AVI whose main header's total frames and every stream header's length say `frames`. */
export function lieAviLength(path: string, frames: number): void {
  const bytes = readFileSync(path);
  const avih = bytes.indexOf('avih', 0, 'latin1');
  bytes.writeUInt32LE(frames, avih + 8 + 16);
  for (
    let strh = bytes.indexOf('strh', 0, 'latin1');
    strh >= 0;
    strh = bytes.indexOf('strh', strh + 4, 'latin1')
  ) {
    bytes.writeUInt32LE(frames, strh + 8 + 32);
  }
  writeFileSync(path, bytes);
}

/**
 * A clip whose header and first frames are 64×48 and whose last frames are 1600×1200, in `container`
 * (ffmpeg's muxer name): two pieces joined by the concat demuxer without decoding, which keeps the first
 * piece's header. MJPEG frames carry their own size; H.264 carries its parameter sets in every keyframe
 * (`repeat-headers`), as broadcasts and cameras write it.
 */
export function sizeSwitching(dir: string, name: string, codec: 'mjpeg' | 'h264', container: string): string {
  const list = join(dir, `${name}.txt`);
  writeFileSync(
    list,
    piecesOf(dir, codec)
      .map((file) => `file '${file}'`)
      .join('\n'),
  );
  const out = join(dir, name);
  ffmpeg(['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-f', container, out]);
  return out;
}

/** Pieces already made per folder and codec: two containers of one codec join the same two pieces. */
const madePieces = new Map<string, string[]>();

/** The small and the big piece of sizeSwitching, both written by one ffmpeg run (one start, not two). */
function piecesOf(dir: string, codec: 'mjpeg' | 'h264'): string[] {
  const key = join(dir, codec);
  const made = madePieces.get(key);
  if (made !== undefined) return made;
  const encode =
    codec === 'mjpeg'
      ? ['-c:v', 'mjpeg', '-q:v', '10']
      : ['-c:v', 'libx264', '-preset', 'ultrafast', '-x264-params', 'repeat-headers=1'];
  const files = [`${codec}-small.mkv`, `${codec}-big.mkv`];
  ffmpeg([
    ...pattern('64x48', 8),
    ...pattern('1600x1200', 0.4),
    ...files.flatMap((file, i) => ['-map', `${i}:v`, ...encode, '-f', 'matroska', join(dir, file)]),
  ]);
  madePieces.set(key, files);
  return files;
}

const box = (type: string, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length + 8);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** A `url ` data reference entry that is not self-contained: the samples are at `location`. */
export function urlReference(location: string): Buffer {
  return box('url ', u32(0), Buffer.from(`${location}\0`, 'latin1'));
}

/**
 * A Mac alias entry as ffmpeg's mov demuxer reads it: volume and file name records, one level up and
 * down (the file next to the movie), and the absolute path `path`.
 */
export function aliasReference(path: string): Buffer {
  const name = Buffer.alloc(64);
  name[0] = Math.min(63, path.split('/').at(-1)!.length);
  name.write(path.split('/').at(-1)!, 1, 'latin1');
  const levels = Buffer.from([0, 1, 0, 1]); // up one level from the movie, down one to the target
  const pathBytes = Buffer.from(path.length % 2 === 0 ? path : `${path}\0`, 'latin1');
  const record = Buffer.concat([Buffer.from([0, 2]), Buffer.from([0, path.length]), pathBytes]);
  const end = Buffer.from([0xff, 0xff, 0, 0]);
  const body = [
    Buffer.alloc(10),
    Buffer.alloc(28),
    Buffer.alloc(12),
    name,
    Buffer.alloc(16),
    levels,
    Buffer.alloc(16),
  ];
  return box('alis', u32(0), ...body, record, end);
}

/**
 * `source` (an MP4 with its index at the end) with every track's data reference replaced by `entry` and
 * its samples removed; with `compressed`, the movie header is zlib-compressed (`cmov`), as old QuickTime wrote.
 */
export function externalSamples(source: string, out: string, entry: Buffer, compressed = false): string {
  const bytes = readFileSync(source);
  const rebuild = (start: number, end: number): Buffer[] =>
    boxesIn(bytes, start, end).map((b) => {
      if (b.type === 'dref') return box('dref', u32(0), u32(1), entry);
      if (MP4_CONTAINERS.has(b.type)) return box(b.type, ...rebuild(b.at + 8, b.at + b.size));
      return bytes.subarray(b.at, b.at + b.size);
    });
  const top = boxesIn(bytes, 0, bytes.length);
  const parts = top
    .filter((b) => b.type !== 'mdat')
    .map((b) => {
      if (b.type !== 'moov') return bytes.subarray(b.at, b.at + b.size);
      const moov = box('moov', ...rebuild(b.at + 8, b.at + b.size));
      if (!compressed) return moov;
      const cmvd = box('cmvd', u32(moov.length), deflateSync(moov));
      return box('moov', box('cmov', box('dcom', Buffer.from('zlib', 'latin1')), cmvd));
    });
  writeFileSync(out, Buffer.concat(parts));
  return out;
}
