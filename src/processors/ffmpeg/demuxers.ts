/**
 * The one place that says how an untrusted file is opened by ffmpeg or ffprobe. ffmpeg's own format
 * probing would happily read an "AVI" that is really an HLS playlist or an ffconcat list, and those
 * demuxers open other files or URLs and copy them into the output. So the demuxer is forced to the one
 * matching the format detected from the magic bytes, chosen from an allow-list of container demuxers
 * that never open another resource, and only the `file` protocol is allowed, on the one input path.
 */
import { type DecodeBounds, decoderArgs, readLimitArgs } from './decode-bounds.ts';

/** Our format name → the ffmpeg demuxer that reads it. Nothing outside this table is ever opened. */
const DEMUXER_BY_FORMAT: Readonly<Record<string, string>> = {
  mp4: 'mov',
  mov: 'mov',
  m4a: 'mov',
  '3gp': 'mov',
  webm: 'matroska',
  mkv: 'matroska',
  weba: 'matroska',
  mka: 'matroska',
  avi: 'avi',
  mpeg: 'mpeg',
  mpegts: 'mpegts',
  ogv: 'ogg',
  ogg: 'ogg',
  opus: 'ogg',
  flv: 'flv',
  wmv: 'asf',
  wma: 'asf',
  mp3: 'mp3',
  wav: 'wav',
  flac: 'flac',
  aac: 'aac',
  aiff: 'aiff',
};

export function demuxerFor(format: string): string | undefined {
  return Object.hasOwn(DEMUXER_BY_FORMAT, format) ? DEMUXER_BY_FORMAT[format] : undefined;
}

/** Demuxers that cannot seek in files without an index (FLV's is optional metadata). */
const SEEKS_BADLY = new Set(['flv']);

/**
 * Where `-ss` goes to start at `start` seconds: before the input (a fast seek, frame-accurate when
 * transcoding) where the demuxer can seek, after it (decode and drop) where it cannot. Nothing at 0:
 * even `-ss 0` makes ffmpeg seek, which fails on an FLV without an index.
 */
export function seekArgs(format: string, start: number): { before: string[]; after: string[] } {
  if (!(start > 0)) return { before: [], after: [] };
  const ss = ['-ss', start.toFixed(3)];
  return SEEKS_BADLY.has(demuxerFor(format) ?? '') ? { before: [], after: ss } : { before: ss, after: [] };
}

/**
 * The forced demuxer, the `file` protocol only, and the path behind an explicit `file:` so no part of it is
 * read as a protocol or option. The mov demuxer's external data references (`enable_drefs`) stay off, as
 * they are by default, and would not take absolute paths either (`use_absolute_path`); both are set
 * explicitly so a future default cannot turn them on (mp4-data-refs.ts refuses such files before).
 */
function demuxerArgs(format: string, path: string): { options: string[]; input: string[] } {
  const demuxer = demuxerFor(format);
  if (demuxer === undefined) throw new Error(`no demuxer allowed for format ${format}`);
  const movOptions = demuxer === 'mov' ? ['-enable_drefs', '0', '-use_absolute_path', '0'] : [];
  return {
    options: ['-protocol_whitelist', 'file', '-f', demuxer, ...movOptions],
    input: ['-i', `file:${path}`],
  };
}

/** ffmpeg's options for one untrusted input: demuxer and protocol as above, decoders and reading bounded. */
export function safeInputArgs(format: string, path: string, bounds: DecodeBounds): string[] {
  const { options, input } = demuxerArgs(format, path);
  return [...options, ...decoderArgs(bounds), ...readLimitArgs(bounds), ...input];
}

/** ffprobe's options for one untrusted input: the same, without the read limit ffprobe does not have. */
export function probeInputArgs(format: string, path: string, bounds: DecodeBounds): string[] {
  const { options, input } = demuxerArgs(format, path);
  return [...options, ...decoderArgs(bounds), ...input];
}
