/**
 * The video processor's limits, declared once: the typed value (`VideoLimits`), its defaults and the
 * `PRESSO_VIDEO_*` variables that set them. Each refusal is a clear 422.
 */
import { bytes, duration, int, type Loaded, section } from '../../config/env.ts';
import type { DecodeBounds } from '../ffmpeg/decode-bounds.ts';
import { type EarnedTime, timeFloor } from '../shared/time-budget.ts';

/**
 * What a video earns on top of its floor (shared/time-budget.ts): 60 s per MiB, or 2 s per megapixel of the
 * frames it declares (width × height × frames), whichever is less. 98 KB of three 8K frames earn 6 s; a
 * phone's 1080p minute (100 MiB, 3,700 megapixels) earns the whole hour.
 */
export const VIDEO_TIME_EARNED: EarnedTime = { msPerMiB: 60_000, msPerUnit: 2_000 };

export const videoConfig = section({
  maxDurationSeconds: int('PRESSO_VIDEO_MAX_DURATION', {
    default: 4 * 3600,
    min: 1,
    doc: 'Longest video accepted, in seconds',
  }),
  maxFramePixels: int('PRESSO_VIDEO_MAX_FRAME_PIXELS', {
    default: 8192 * 4320,
    min: 1,
    doc: "Largest video frame decoded, in pixels (8K is 35 MP); also sets each ffmpeg run's memory limit",
  }),
  /** A file with thousands of tiny streams is an attack, not a film. */
  maxStreams: int('PRESSO_VIDEO_MAX_STREAMS', {
    default: 32,
    min: 1,
    doc: 'Most streams accepted in a video file',
  }),
  /** RLIMIT_FSIZE on ffmpeg. */
  maxOutputBytes: bytes('PRESSO_VIDEO_MAX_OUTPUT', {
    default: 4 * 1024 ** 3,
    doc: 'Largest video output written; ffmpeg stops beyond it and the job fails',
  }),
  timeBudgetMs: duration('PRESSO_VIDEO_TIME_BUDGET', {
    default: 3_600_000,
    doc:
      'Most time one video may take to process (quality search included; what it gets is earned from ' +
      'PRESSO_VIDEO_TIME_FLOOR up); the job then fails, never retried',
  }),
  timeFloorMs: timeFloor('VIDEO', 'video', 30_000, 'each MiB and each megapixel of frames it declares'),
  /** The others wait their turn, so one 4K job cannot starve the images. */
  encodesInFlight: int('PRESSO_VIDEO_ENCODES', {
    default: 1,
    min: 1,
    max: 64,
    doc: 'Video encodes one process runs at once; others wait their turn so images keep their share',
  }),
});

export type VideoLimits = Loaded<typeof videoConfig>;

export const DEFAULT_VIDEO_LIMITS: VideoLimits = videoConfig.load({});

/** What every ffmpeg run of a video job may decode: the declared limits, whatever the file's header says. */
export function videoDecodeBounds(limits: VideoLimits): DecodeBounds {
  return {
    subject: 'video',
    maxFramePixels: limits.maxFramePixels,
    maxDurationSeconds: limits.maxDurationSeconds,
  };
}
