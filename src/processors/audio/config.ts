/**
 * The audio processor's limits, declared once: the typed value (`AudioLimits`), its defaults and the
 * `PRESSO_AUDIO_*` variables that set them. Each refusal is a clear 422.
 */
import { duration, int, type Loaded, section } from '../../config/env.ts';
import { type EarnedTime, timeFloor } from '../shared/time-budget.ts';

/**
 * What an audio file earns on top of its floor (shared/time-budget.ts): 60 s per MiB, or 30 s per minute it
 * declares, whichever is less. An hour's podcast of 28 MiB earns the whole budget.
 */
export const AUDIO_TIME_EARNED: EarnedTime = { msPerMiB: 60_000, msPerUnit: 30_000 };

export const audioConfig = section(
  {
    maxDurationSeconds: int('PRESSO_AUDIO_MAX_DURATION', {
      default: 6 * 3600,
      min: 1,
      doc: 'Longest audio file accepted, in seconds',
    }),
    timeBudgetMs: duration('PRESSO_AUDIO_TIME_BUDGET', {
      default: 900_000,
      doc:
        'Most time one audio file may take to process (what it gets is earned from PRESSO_AUDIO_TIME_FLOOR ' +
        'up); the job then fails, never retried',
    }),
    timeFloorMs: timeFloor('AUDIO', 'audio file', 30_000, 'each MiB and each minute it declares'),
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
