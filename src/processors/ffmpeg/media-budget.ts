/**
 * The work a media file declares, for the time it earns (shared/time-budget.ts): read from the probe, so
 * counted before anything is decoded. Declared, not trusted: a file claiming more than it holds gains nothing
 * (its size bounds what it earns), and one holding more than it claims is cut to its claim while decoding.
 */
import { type MediaProbe, mainAudio, mainVideo } from './probe.ts';

/** A rate for streams that do not state theirs. */
const ASSUMED_FPS = 30;

/**
 * Megapixels over every frame of the main video: width × height × frames, the frames from the stream's count
 * or its duration × rate, whichever is more (a count can be missing or short).
 */
export function declaredVideoMegapixels(probe: MediaProbe): number {
  const video = mainVideo(probe);
  if (video === undefined) return 0;
  const seconds = Math.max(0, video.endSeconds ?? probe.durationSeconds);
  const frames = Math.max(video.frames ?? 0, seconds * (video.fps ?? ASSUMED_FPS), 1);
  return ((video.width ?? 0) * (video.height ?? 0) * frames) / 1_000_000;
}

/** Minutes of the main audio stream (of the whole file when it states no duration of its own). */
export function declaredAudioMinutes(probe: MediaProbe): number {
  return mainAudio(probe) === undefined ? 0 : Math.max(0, probe.durationSeconds) / 60;
}
