/**
 * Encoder settings per codec: the ffmpeg arguments for one quantiser value, the range the quality
 * search explores, and each container's muxer and audio codec. Presets trade speed for bytes at the
 * same quality; these are the encoders' own balanced defaults, with fixed thread counts so the bytes
 * never depend on the host.
 */
import { ENCODER_THREADS } from '../ffmpeg/run-ffmpeg.ts';
import type { EncoderMemory } from '../ffmpeg/tool-memory.ts';
import type { VideoCodec, VideoFormat } from './params.ts';

const MB = 1024 ** 2;

export interface CodecSettings {
  /** The ffprobe codec name of this codec's streams. */
  probeName: string;
  /** Lowest and highest quantiser (CRF) the search tries; lower is better quality. */
  range: readonly [number, number];
  /** Where the search starts for each lossy level. */
  start: Readonly<Record<'medium' | 'high' | 'ultra', number>>;
  args(crf: number): string[];
  /**
   * What the encoder takes for frames of one size (tool-memory.ts): peak VmData between 720p and 2160p
   * with these settings, per pixel and at none, with about a quarter more.
   */
  memory: EncoderMemory;
  /**
   * How many of the search's proxy trials one ffmpeg run encodes at once (quality-search.ts): all of them
   * where the encoder is small, fewer where each instance reserves hundreds of MB whatever the frame size.
   */
  trialsPerRun: number;
  /**
   * CRF between the search's grid points: AV1's scale is about twice as wide as x264's for the same change
   * in quality (movie-hello at `high`: x264 30, SVT-AV1 52), so its grid spans twice as far.
   */
  gridStep: number;
}

export const CODEC_SETTINGS: Readonly<Record<VideoCodec, CodecSettings>> = {
  h264: {
    probeName: 'h264',
    range: [16, 36],
    start: { medium: 21, high: 24, ultra: 28 },
    memory: { baseBytes: 256 * MB, bytesPerPixel: 256 }, // 199 B/px measured (lookahead of 40 frames)
    trialsPerRun: 5,
    gridStep: 3,
    args: (crf) => [
      '-c:v',
      'libx264',
      '-preset',
      'medium',
      '-profile:v',
      'high',
      '-crf',
      String(crf),
      '-threads',
      String(ENCODER_THREADS),
      // x264's threaded lookahead made small frames (320×240) come out differently run to run when several
      // encodes ran at once (2 outputs of 6); without it 6 of 6 agreed, and 720p gave the same bytes as with
      // it (docs/video-audio.md, Benchmark).
      '-x264-params',
      'sync-lookahead=0',
    ],
  },
  h265: {
    probeName: 'hevc',
    range: [18, 38],
    start: { medium: 23, high: 26, ultra: 30 },
    memory: { baseBytes: 256 * MB, bytesPerPixel: 240 }, // 185 B/px measured
    trialsPerRun: 5,
    gridStep: 3,
    args: (crf) => [
      '-c:v',
      'libx265',
      '-preset',
      'medium',
      '-crf',
      String(crf),
      '-x265-params',
      `log-level=error:pools=${ENCODER_THREADS}:frame-threads=1`,
      '-tag:v',
      'hvc1', // what Apple players expect of HEVC in MP4 and MOV
    ],
  },
  vp9: {
    probeName: 'vp9',
    range: [20, 50],
    start: { medium: 30, high: 34, ultra: 40 },
    memory: { baseBytes: 192 * MB, bytesPerPixel: 160 }, // 125 B/px measured
    trialsPerRun: 5,
    gridStep: 4,
    args: (crf) => [
      '-c:v',
      'libvpx-vp9',
      '-crf',
      String(crf),
      '-b:v',
      '0',
      '-deadline',
      'good',
      '-cpu-used',
      '2',
      '-row-mt',
      '1',
      '-threads',
      String(ENCODER_THREADS),
    ],
  },
  av1: {
    probeName: 'av1',
    range: [20, 55],
    start: { medium: 30, high: 35, ultra: 42 },
    // 380 B/px and 740 MB at none measured. SVT-AV1 stalls instead of failing when an allocation is
    // refused, so its margin is the widest: a run short of memory would wait for the time budget.
    memory: { baseBytes: 1024 * MB, bytesPerPixel: 480 },
    trialsPerRun: 1,
    gridStep: 6,
    args: (crf) => [
      '-c:v',
      'libsvtav1',
      '-crf',
      String(crf),
      '-preset',
      '8',
      '-svtav1-params',
      `lp=${ENCODER_THREADS}`,
    ],
  },
};

/** The GIF palette pipeline (palettegen keeps statistics, paletteuse a frame and its palette): 131 B/px measured. */
export const GIF_MEMORY: EncoderMemory = { baseBytes: 256 * MB, bytesPerPixel: 168 };

export interface ContainerSettings {
  muxer: string;
  defaultCodec: VideoCodec | undefined;
  /** Audio codec (ffmpeg encoder, ffprobe name) and its default bitrate in kbit/s for stereo. */
  audio: { encoder: string; probeName: string; kbps: number } | undefined;
  /** Extra muxer flags: the index first, so playback starts before the download ends. */
  muxerArgs: string[];
}

const AAC = { encoder: 'aac', probeName: 'aac', kbps: 128 };
const OPUS = { encoder: 'libopus', probeName: 'opus', kbps: 96 };

export const CONTAINERS: Readonly<Record<VideoFormat, ContainerSettings>> = {
  mp4: { muxer: 'mp4', defaultCodec: 'h264', audio: AAC, muxerArgs: ['-movflags', '+faststart'] },
  mov: { muxer: 'mov', defaultCodec: 'h264', audio: AAC, muxerArgs: ['-movflags', '+faststart'] },
  mkv: { muxer: 'matroska', defaultCodec: 'h264', audio: AAC, muxerArgs: [] },
  webm: { muxer: 'webm', defaultCodec: 'av1', audio: OPUS, muxerArgs: [] },
  gif: { muxer: 'gif', defaultCodec: undefined, audio: undefined, muxerArgs: [] },
};

/** Input containers kept as they are by default; others (AVI, MPEG, OGV, ...) become MP4. */
export function defaultVideoFormat(inputFormat: string): VideoFormat {
  return inputFormat === 'webm' || inputFormat === 'mov' || inputFormat === 'mkv' ? inputFormat : 'mp4';
}
