/**
 * The final encode: one ffmpeg run from the untrusted input (demuxer forced, `file` protocol only) to
 * the output container, with the planned filters, the chosen quantiser, the audio decision and no
 * metadata carried over (phone videos carry GPS positions). `-fflags +bitexact` keeps the muxers from
 * writing random identifiers, so the same request gives the same bytes.
 */
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { safeInputArgs, seekArgs } from '../ffmpeg/demuxers.ts';
import type { ProbedStream } from '../ffmpeg/probe.ts';
import { type FfmpegOptions, type FfmpegReport, runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import { CODEC_SETTINGS, CONTAINERS, GIF_MEMORY } from './encoders.ts';
import type { VideoCodec, VideoFormat } from './params.ts';

export interface EncodePlan {
  inputPath: string;
  inputFormat: string;
  start: number;
  /** undefined: to the end. */
  duration: number | undefined;
  filters: string[];
  /** Pixels of the frames written, after the filters (for the memory limit). */
  outputPixels: number;
  format: VideoFormat;
  codec: VideoCodec | undefined;
  crf: number;
  audio: AudioPlan;
  output: string;
}

export type AudioPlan =
  | { kind: 'none' }
  | { kind: 'copy' }
  | { kind: 'encode'; encoder: string; kbps: number; channels: number | undefined };

/** How the first audio track gets into the container; copy when it already fits and is not bloated. */
export function planAudio(
  request: 'keep' | 'remove' | number,
  format: VideoFormat,
  audio: ProbedStream | undefined,
  trimmed: boolean,
): AudioPlan {
  const container = CONTAINERS[format].audio;
  if (request === 'remove' || audio === undefined || container === undefined) return { kind: 'none' };
  // More than two channels are mixed down: web players and phones play stereo.
  const channels = (audio.channels ?? 2) > 2 ? 2 : undefined;
  if (typeof request === 'number') {
    return { kind: 'encode', encoder: container.encoder, kbps: request, channels };
  }
  const fits =
    audio.codec === container.probeName &&
    channels === undefined &&
    (audio.bitrate === undefined || audio.bitrate <= container.kbps * 1000 * 1.25);
  // A trim cuts audio at packet boundaries when copied; within a frame (~21 ms) of the video's cut.
  if (fits && !trimmed) return { kind: 'copy' };
  const perChannel = container.kbps / 2;
  const kbps = Math.round(perChannel * Math.min(2, audio.channels ?? 2));
  return { kind: 'encode', encoder: container.encoder, kbps, channels };
}

function audioArgs(plan: AudioPlan): string[] {
  if (plan.kind === 'none') return ['-an'];
  const map = ['-map', '0:a:0'];
  if (plan.kind === 'copy') return [...map, '-c:a', 'copy'];
  const channels = plan.channels === undefined ? [] : ['-ac', String(plan.channels)];
  return [...map, '-c:a', plan.encoder, '-b:a', `${plan.kbps}k`, ...channels];
}

/** GIF: one palette per clip from the frames that change, ordered dithering (stable, compresses well). */
function gifFilter(filters: string[]): string {
  return `${filters.join(',')},split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=3`;
}

export function trimArgs(
  format: string,
  start: number,
  duration: number | undefined,
): { before: string[]; after: string[] } {
  const seek = seekArgs(format, start);
  return {
    before: seek.before,
    after: [...seek.after, ...(duration === undefined ? [] : ['-t', duration.toFixed(3)])],
  };
}

export async function encodeVideo(
  plan: EncodePlan,
  run: MediaRun,
  options: Pick<FfmpegOptions, 'onProgress' | 'expectedSeconds' | 'limits'>,
): Promise<FfmpegReport> {
  const container = CONTAINERS[plan.format];
  const trim = trimArgs(plan.inputFormat, plan.start, plan.duration);
  const video =
    plan.format === 'gif'
      ? ['-filter_complex', `[0:V:0]${gifFilter(plan.filters)}`]
      : [
          '-map',
          '0:V:0',
          '-vf',
          [...plan.filters, 'format=yuv420p'].join(','),
          // Frames keep their own times (a phone's variable frame rate) unless a rate was asked for: ffmpeg's
          // default for MP4 and MOV is a constant rate, which repeats frames to fill the gaps.
          ...(plan.filters.some((f) => f.startsWith('fps=')) ? [] : ['-fps_mode', 'vfr']),
          ...CODEC_SETTINGS[plan.codec ?? 'h264'].args(plan.crf),
        ];
  return runFfmpeg(
    [
      ...trim.before,
      ...safeInputArgs(plan.inputFormat, plan.inputPath, run.bounds),
      ...trim.after,
      ...video,
      ...(plan.format === 'gif' ? ['-an'] : audioArgs(plan.audio)),
      '-sn',
      '-dn',
      '-map_metadata',
      '-1',
      '-map_chapters',
      '-1',
      '-fflags',
      '+bitexact',
      ...container.muxerArgs,
      '-f',
      container.muxer,
      plan.output,
    ],
    run,
    {
      ...options,
      encoder: {
        memory: plan.format === 'gif' ? GIF_MEMORY : CODEC_SETTINGS[plan.codec ?? 'h264'].memory,
        pixels: plan.outputPixels,
      },
    },
  );
}
