/** The audio processor's limits (the `audio` config section); each refusal is a clear 422. */
import type { MediaLimits } from '../ffmpeg/media-limits.ts';

export interface AudioLimits extends MediaLimits {
  maxOutputBytes: number;
  /** Time one audio file may take to process; the job fails (never retried) after it. */
  timeBudgetMs: number;
}

export const DEFAULT_AUDIO_LIMITS: AudioLimits = {
  maxDurationSeconds: 6 * 3600,
  // Cover art is a picture stream: a 16 MP one is plenty.
  maxFramePixels: 16_000_000,
  maxStreams: 16,
  maxOutputBytes: 2 * 1024 ** 3,
  timeBudgetMs: 900_000,
};
