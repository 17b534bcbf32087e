/** Limits every ffmpeg-backed processor checks on the probe before any decoding; each refusal is a clear 422. */
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { MediaProbe } from './probe.ts';

/** The limits a probe is checked against, the same three for video and audio. */
export interface MediaLimits {
  /** Longest input accepted, in seconds. */
  maxDurationSeconds: number;
  /** Largest picture accepted (a video frame, cover art), in pixels. */
  maxFramePixels: number;
  /** Most streams accepted in one file. */
  maxStreams: number;
}

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
