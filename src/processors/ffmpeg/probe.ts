/**
 * ffprobe's view of an untrusted input (opened through probeInputArgs), reduced to the facts the video
 * and audio processors decide on. ffprobe confirms what the magic bytes suggested: a file it cannot
 * read with the forced demuxer, or one without a stream of the expected kind, is refused; so is an MP4
 * or QuickTime file whose samples live in another file (mp4-data-refs.ts), and one whose first frames,
 * decoded to fill in the description, are over the frame limit.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { runTool } from '../shared/run-tool.ts';
import { frameLimitRefusal, type MediaRun } from './decode-bounds.ts';
import { demuxerFor, probeInputArgs } from './demuxers.ts';
import { externalSampleReference } from './mp4-data-refs.ts';
import { ffmpegMemoryBytes } from './tool-memory.ts';

export interface ProbedStream {
  index: number;
  type: 'video' | 'audio' | 'subtitle' | 'data' | 'attachment';
  codec: string;
  bitrate: number | undefined;
  /** An attached picture (cover art) rather than a moving picture. */
  attachedPicture: boolean;
  width: number | undefined;
  height: number | undefined;
  /** Average frame rate in frames per second. */
  fps: number | undefined;
  /** Clockwise degrees a player turns the picture (from the display matrix), 0, 90, 180 or 270. */
  rotation: number;
  pixelFormat: string | undefined;
  colorTransfer: string | undefined;
  channels: number | undefined;
  sampleRate: number | undefined;
  language: string | undefined;
  frames: number | undefined;
  /** Bits per audio sample as stored (24 for 24-bit PCM or FLAC); undefined when not told. */
  bitsPerSample: number | undefined;
  /** Tags of the stream itself (Ogg and Opus keep a file's title there, not on the container). */
  hasTags: boolean;
  /**
   * When the stream ends, in seconds from the file's start, if the file tells it (MP4 and MOV per track,
   * Matroska in a DURATION tag). A video track can end long before the file's audio does.
   */
  endSeconds?: number | undefined;
}

export interface MediaProbe {
  /** ffprobe's demuxer name (`mov,mp4,m4a,3gp,3g2,mj2`). */
  container: string;
  durationSeconds: number;
  bitrate: number | undefined;
  streams: ProbedStream[];
  tags: Record<string, string>;
}

const num = (value: unknown): number | undefined => {
  const n = typeof value === 'string' || typeof value === 'number' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

function rate(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const [n, d] = value.split('/').map(Number);
  if (n === undefined || d === undefined || !(d > 0) || !(n > 0)) return undefined;
  return Math.round((n / d) * 1000) / 1000;
}

/** ffprobe reports the display matrix's counter-clockwise angle; players turn clockwise by its negation. */
function rotationOf(stream: Record<string, unknown>): number {
  const list = Array.isArray(stream.side_data_list) ? stream.side_data_list : [];
  const matrix = list.find((s: Record<string, unknown>) => typeof s?.rotation === 'number');
  const tagged = num((stream.tags as Record<string, unknown> | undefined)?.rotate);
  const ccw = matrix !== undefined ? -(matrix.rotation as number) : (tagged ?? 0);
  return (((Math.round(ccw / 90) * 90) % 360) + 360) % 360;
}

const STREAM_TYPES = new Set(['video', 'audio', 'subtitle', 'data', 'attachment']);

function parseStream(s: Record<string, unknown>): ProbedStream {
  const type = String(s.codec_type);
  const disposition = (s.disposition ?? {}) as Record<string, unknown>;
  const tags = (s.tags ?? {}) as Record<string, unknown>;
  return {
    index: num(s.index) ?? 0,
    type: (STREAM_TYPES.has(type) ? type : 'data') as ProbedStream['type'],
    codec: typeof s.codec_name === 'string' ? s.codec_name : 'unknown',
    bitrate: num(s.bit_rate),
    attachedPicture: disposition.attached_pic === 1,
    width: num(s.width),
    height: num(s.height),
    fps: rate(s.avg_frame_rate) ?? rate(s.r_frame_rate),
    rotation: rotationOf(s),
    pixelFormat: typeof s.pix_fmt === 'string' ? s.pix_fmt : undefined,
    colorTransfer: typeof s.color_transfer === 'string' ? s.color_transfer : undefined,
    channels: num(s.channels),
    sampleRate: num(s.sample_rate),
    language: typeof tags.language === 'string' ? tags.language : undefined,
    frames: num(s.nb_frames),
    bitsPerSample: num(s.bits_per_raw_sample) || num(s.bits_per_sample) || undefined,
    hasTags: Object.keys(tags).some((key) => key.toLowerCase() !== 'language' && !key.startsWith('_')),
  };
}

/** A stream's own length in seconds: ffprobe's, else Matroska's `DURATION` tag (`HH:MM:SS.nnnnnnnnn`). */
function streamLength(s: Record<string, unknown>): number | undefined {
  const length = num(s.duration);
  if (length !== undefined && length > 0) return length;
  const tag = ((s.tags ?? {}) as Record<string, unknown>).DURATION;
  const parts = typeof tag === 'string' ? /^(\d+):(\d\d):(\d\d(?:\.\d+)?)$/.exec(tag) : null;
  return parts ? Number(parts[1]) * 3600 + Number(parts[2]) * 60 + Number(parts[3]) : undefined;
}

/** Largest ffprobe description read (a file of many streams or long tags runs to tens of KB). */
const PROBE_OUTPUT_BYTES = 16 * 1024 * 1024;
let probes = 0;

/** ffprobe's JSON for `args`, written to a file in the job's folder (stdout's capped tail would cut it). */
async function ffprobeJson<T>(args: string[], run: MediaRun): Promise<T> {
  const file = join(run.workDir, `ffprobe-${++probes}.json`);
  const { stderr } = await runTool('ffprobe', ['-v', 'error', ...args, '-of', 'json'], run, {
    label: 'ffprobe',
    stdoutFile: file,
    limits: { fileBytes: PROBE_OUTPUT_BYTES, memoryBytes: ffmpegMemoryBytes(run.bounds) },
  }).catch((error: unknown) => {
    const log =
      error instanceof UnprocessableInputError && error.cause instanceof Error ? error.cause.message : '';
    throw frameLimitRefusal(log, run.bounds) ?? error;
  });
  try {
    // A decoder that refused a frame leaves its stream described as 0×0: the log says why.
    const refusal = frameLimitRefusal(stderr, run.bounds);
    if (refusal !== undefined) throw refusal;
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (cause) {
    if (cause instanceof UnprocessableInputError) throw cause;
    throw new UnprocessableInputError('ffprobe could not describe the file.', cause);
  } finally {
    await rm(file, { force: true });
  }
}

/** Probes `path` as `format`; a file ffprobe cannot read is the input's fault (422). */
export async function probeMedia(path: string, format: string, run: MediaRun): Promise<MediaProbe> {
  if (demuxerFor(format) === 'mov') {
    const elsewhere = await externalSampleReference(path);
    if (elsewhere !== undefined) {
      throw new UnprocessableInputError(
        `The ${run.bounds.subject} cannot be read from this file alone: ${elsewhere}.`,
      );
    }
  }
  const parsed = await ffprobeJson<{ format?: Record<string, unknown>; streams?: Record<string, unknown>[] }>(
    [...probeInputArgs(format, path, run.bounds), '-show_format', '-show_streams'],
    run,
  );
  const format_ = parsed.format ?? {};
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries((format_.tags ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string') tags[key] = value.slice(0, 500);
  }
  const fileStart = num(format_.start_time) ?? 0;
  const streams = (parsed.streams ?? []).map((raw) => {
    const stream = parseStream(raw);
    const length = streamLength(raw);
    if (length === undefined) return stream;
    return { ...stream, endSeconds: (num(raw.start_time) ?? fileStart) - fileStart + length };
  });
  const longest = Math.max(0, ...(parsed.streams ?? []).map((s) => num(s.duration) ?? 0));
  return {
    container: typeof format_.format_name === 'string' ? format_.format_name : format,
    // Streamed recordings (MediaRecorder's WebM) carry no duration: their last packet tells it.
    durationSeconds: num(format_.duration) || longest || (await lastPacketTime(path, format, run)),
    bitrate: num(format_.bit_rate),
    streams,
    tags,
  };
}

/** The end of the last packet, read from every packet's time (demuxing only, no decoding). */
async function lastPacketTime(path: string, format: string, run: MediaRun): Promise<number> {
  const parsed = await ffprobeJson<{ packets?: Record<string, unknown>[] }>(
    [...probeInputArgs(format, path, run.bounds), '-show_entries', 'packet=pts_time,duration_time'],
    run,
  );
  let end = 0;
  for (const packet of parsed.packets ?? []) {
    end = Math.max(end, (num(packet.pts_time) ?? 0) + (num(packet.duration_time) ?? 0));
  }
  return end;
}

/** The main moving picture: the first video stream that is not cover art. */
export function mainVideo(probe: MediaProbe): ProbedStream | undefined {
  return probe.streams.find((s) => s.type === 'video' && !s.attachedPicture);
}

export function mainAudio(probe: MediaProbe): ProbedStream | undefined {
  return probe.streams.find((s) => s.type === 'audio');
}
