/**
 * ffprobe's view of an untrusted input (opened through safeInputArgs), reduced to the facts the video
 * and audio processors decide on. ffprobe confirms what the magic bytes suggested: a file it cannot
 * read with the forced demuxer, or one without a stream of the expected kind, is refused.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { runTool, type ToolRun } from '../shared/run-tool.ts';
import { safeInputArgs } from './demuxers.ts';

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
  };
}

/** Probes `path` as `format`; a file ffprobe cannot read is the input's fault (422). */
export async function probeMedia(path: string, format: string, run: ToolRun): Promise<MediaProbe> {
  const { stdout } = await runTool(
    'ffprobe',
    ['-v', 'error', ...safeInputArgs(format, path), '-show_format', '-show_streams', '-of', 'json'],
    run,
    { captureStdout: true, label: 'ffprobe' },
  );
  let parsed: { format?: Record<string, unknown>; streams?: Record<string, unknown>[] };
  try {
    parsed = JSON.parse(stdout);
  } catch (cause) {
    throw new UnprocessableInputError('ffprobe could not describe the file.', cause);
  }
  const format_ = parsed.format ?? {};
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries((format_.tags ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string') tags[key] = value.slice(0, 500);
  }
  const streams = (parsed.streams ?? []).map(parseStream);
  const longest = Math.max(0, ...(parsed.streams ?? []).map((s) => num(s.duration) ?? 0));
  return {
    container: typeof format_.format_name === 'string' ? format_.format_name : format,
    durationSeconds: num(format_.duration) ?? longest,
    bitrate: num(format_.bit_rate),
    streams,
    tags,
  };
}

/** The main moving picture: the first video stream that is not cover art. */
export function mainVideo(probe: MediaProbe): ProbedStream | undefined {
  return probe.streams.find((s) => s.type === 'video' && !s.attachedPicture);
}

export function mainAudio(probe: MediaProbe): ProbedStream | undefined {
  return probe.streams.find((s) => s.type === 'audio');
}
