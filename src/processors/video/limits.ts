/** The video processor's limits (the `videos` config section); each refusal is a clear 422. */
import type { MediaLimits } from '../ffmpeg/media-limits.ts';

export interface VideoLimits extends MediaLimits {
  /** Longest input accepted, in seconds. */
  maxDurationSeconds: number;
  /** Largest frame accepted, in pixels (8K UHD is 33 MP). */
  maxFramePixels: number;
  /** Most streams accepted in one file (a file with thousands of tiny streams is an attack, not a film). */
  maxStreams: number;
  /** Largest output file written (RLIMIT_FSIZE on ffmpeg). */
  maxOutputBytes: number;
  /** Time one video may take to process, quality search included; the job fails (never retried) after it. */
  timeBudgetMs: number;
  /** Video encodes one process runs at once; the others wait, so images keep their share. */
  encodesInFlight: number;
}

export const DEFAULT_VIDEO_LIMITS: VideoLimits = {
  maxDurationSeconds: 4 * 3600,
  maxFramePixels: 8192 * 4320,
  maxStreams: 32,
  maxOutputBytes: 4 * 1024 ** 3,
  timeBudgetMs: 3_600_000,
  encodesInFlight: 1,
};
