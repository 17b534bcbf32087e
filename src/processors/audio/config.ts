/**
 * The audio processor's limits, declared once: the typed value (`AudioLimits`), its defaults and the
 * `PRESSO_AUDIO_*` variables that set them. Each refusal is a clear 422.
 */
import { duration, int, type Loaded, section } from '../../config/env.ts';

export const audioConfig = section(
  {
    maxDurationSeconds: int('PRESSO_AUDIO_MAX_DURATION', {
      default: 6 * 3600,
      min: 1,
      doc: 'Longest audio file accepted, in seconds',
    }),
    timeBudgetMs: duration('PRESSO_AUDIO_TIME_BUDGET', {
      default: 900_000,
      doc: 'Time one audio file may take to process; the job then fails, never retried',
    }),
  },
  (v) => ({
    ...v,
    // Fixed: cover art is a picture stream, and a 16 MP one is plenty.
    maxFramePixels: 16_000_000,
    maxStreams: 16,
    maxOutputBytes: 2 * 1024 ** 3,
  }),
);

export type AudioLimits = Loaded<typeof audioConfig>;

export const DEFAULT_AUDIO_LIMITS: AudioLimits = audioConfig.load({});
