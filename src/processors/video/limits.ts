/** The video processor's limits (the `videos` config section); each refusal is a clear 422. */
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { MediaProbe } from '../ffmpeg/probe.ts';

export interface VideoLimits {
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
  /** Video and audio encodes one process runs at once; the others wait, so images keep their share. */
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

/** The limits a probe is checked against; the audio processor has the same three. */
export type MediaLimits = Pick<VideoLimits, 'maxStreams' | 'maxDurationSeconds' | 'maxFramePixels'>;

export function checkMediaLimits(probe: MediaProbe, limits: MediaLimits, subject: string): void {
  if (probe.streams.length > limits.maxStreams) {
    throw new UnprocessableInputError(
      `The ${subject} has ${probe.streams.length} streams; at most ${limits.maxStreams} are accepted.`,
    );
  }
  if (probe.durationSeconds > limits.maxDurationSeconds) {
    throw new UnprocessableInputError(
      `The ${subject} lasts ${Math.round(probe.durationSeconds)} s; at most ${limits.maxDurationSeconds} s are accepted.`,
    );
  }
  for (const stream of probe.streams) {
    const pixels = (stream.width ?? 0) * (stream.height ?? 0);
    if (stream.type === 'video' && pixels > limits.maxFramePixels) {
      throw new UnprocessableInputError(
        `The ${subject}'s frames are ${stream.width}×${stream.height}; at most ${limits.maxFramePixels} pixels are accepted.`,
      );
    }
  }
}
