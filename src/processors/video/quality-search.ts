/**
 * Picks the quantiser (CRF) per video on a proxy: a few short segments, sampled evenly across the part
 * being encoded, are decoded once, filtered as the final encode is and scaled down to at most PROXY_PIXELS;
 * that one ffmpeg run writes the lossless reference (FFV1) and a fixed grid of trial encodes, and one more
 * run scores every trial against the reference with ffmpeg's `ssim` filter (every frame) and the project's
 * SSIMULACRA 2 (each segment's middle frame). Two runs instead of two per trial: each run's start and each
 * decode of the source cost as much as a trial on the proxy. The answer is the largest CRF (smallest file)
 * whose scores, read between the trials, both meet the level's targets, moved by the measured offset between
 * a proxy's scores and the full frame's (PROXY_OFFSET). encode-to-level.ts checks it at full size and
 * lowers it when it misses. The grid is fixed (work, never seconds), so the same request on the same input
 * gives the same bytes whatever the load.
 */
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { safeInputArgs } from '../ffmpeg/demuxers.ts';
import { ENCODER_THREADS, runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import { type EncoderMemory, FFV1_MEMORY } from '../ffmpeg/tool-memory.ts';
import { CODEC_SETTINGS } from './encoders.ts';
import { type Footage, footageGraph, footageInputs, scoreEncodes, withInputs } from './footage.ts';
import type { VideoCodec } from './params.ts';

/** Mean SSIM (all planes) each lossy level must reach, in dB (-10·log10(1 − SSIM)). */
export const SSIM_TARGET_DB = { medium: 20, high: 17.5, ultra: 15 } as const;
/** SSIMULACRA 2 each level's sampled frames must reach on average (the image levels' scale). */
export const SSIMULACRA2_TARGET = { medium: 80, high: 72, ultra: 60 } as const;
export type LossyLevel = keyof typeof SSIM_TARGET_DB;

/**
 * The search's grid: trials per video, all encoded from one decode of the segments and scored in one run,
 * the codec's `gridStep` CRF apart (the answer is read between them).
 */
export const GRID_POINTS = 5;
const SEGMENT_SECONDS = 1;
export const SEGMENTS = 3;
/**
 * Largest proxy frame: a 1080p picture is searched at 480×270 (a sixteenth of its pixels), 720p at
 * 426×240. A trial there costs a tenth or less of a full-size one.
 */
export const PROXY_PIXELS = 160_000;
/**
 * How a proxy's scores differ from the full frame's at the same CRF, measured on the media benchmark's
 * clips (docs/video-audio.md, Benchmark): SSIM is lower on the proxy (0.5 dB on a 768×576 camera at half
 * size, 2 dB on 1080p at a quarter, up to 4.6 on a screen recording), so its target is lowered by the
 * smallest gap seen; SSIMULACRA 2 is higher on the proxy (its artefacts are smaller than the frame's), by
 * about 1.5 points per step of the scale factor, so its target is raised by that. The full-size check
 * (encode-to-level.ts) catches what the calibration misses.
 */
export const PROXY_OFFSET = { db: 0.4, ssimulacra2PerFactor: 1.5 } as const;

export interface SearchInput {
  /** The untrusted input, opened through safeInputArgs. */
  path: string;
  format: string;
  /** Start and length of the part of the input that is encoded. */
  start: number;
  duration: number;
  /** The filter chain of the final encode, pixel format included. */
  filters: string;
  codec: VideoCodec;
  level: LossyLevel;
  /** The filtered frame's size (the proxy's is derived from it). */
  width: number;
  height: number;
}

/** The proxy frame: the full frame divided by the smallest whole factor that fits PROXY_PIXELS, even sides. */
export function proxyFrame(width: number, height: number): { width: number; height: number; factor: number } {
  let factor = 1;
  while ((width / factor) * (height / factor) > PROXY_PIXELS) factor++;
  const side = (n: number) => Math.max(2, 2 * Math.round(n / factor / 2));
  return factor === 1 ? { width, height, factor } : { width: side(width), height: side(height), factor };
}

/** What the proxy's trials must reach for the full-size output to meet the level. */
export function proxyTargets(level: LossyLevel, factor: number): { db: number; ssimulacra2: number } {
  const db = factor === 1 ? 0 : PROXY_OFFSET.db;
  const s2 = PROXY_OFFSET.ssimulacra2PerFactor * (factor - 1);
  return { db: SSIM_TARGET_DB[level] - db, ssimulacra2: SSIMULACRA2_TARGET[level] + s2 };
}

export interface SearchResult {
  crf: number;
  /** Every trial's CRF, SSIM dB and sampled-frame SSIMULACRA 2 on the proxy, in the order tried. */
  trials: Trial[];
}

export interface Trial {
  crf: number;
  db: number;
  ssimulacra2: number;
}

/** The part to encode holds no video frame. The processor says why, in the caller's terms. */
export class NoVideoFramesError extends Error {
  constructor() {
    super('the part to encode holds no video frame');
    this.name = 'NoVideoFramesError';
  }
}

/** Segment windows: the whole part when it is short, else `SEGMENTS` evenly spaced windows. */
export function segmentStarts(start: number, duration: number): { at: number; length: number }[] {
  if (duration <= SEGMENTS * SEGMENT_SECONDS) return [{ at: start, length: duration }];
  const stride = duration / SEGMENTS;
  return Array.from({ length: SEGMENTS }, (_, i) => ({
    at: start + stride * i + (stride - SEGMENT_SECONDS) / 2,
    length: SEGMENT_SECONDS,
  }));
}

/** The sampled segments of the part being encoded, at full size. */
export function segmentFootage(input: SearchInput): Footage {
  return {
    path: input.path,
    format: input.format,
    windows: segmentStarts(input.start, input.duration),
    filters: input.filters,
  };
}

/**
 * The CRFs a search tries for a level: GRID_POINTS of them, the codec's `gridStep` apart, from one step
 * below the codec's start for the level (x264 on the benchmark's six clips landed between 2 CRF below and 7
 * above it at `high`), within the codec's range.
 */
export function searchGrid(codec: VideoCodec, level: LossyLevel): number[] {
  const settings = CODEC_SETTINGS[codec];
  const [lowest, highest] = settings.range;
  const step = settings.gridStep;
  const first = Math.max(lowest, Math.min(highest - (GRID_POINTS - 1) * step, settings.start[level] - step));
  return Array.from({ length: GRID_POINTS }, (_, i) => first + i * step);
}

export async function searchCrf(input: SearchInput, run: MediaRun): Promise<SearchResult> {
  const settings = CODEC_SETTINGS[input.codec];
  const proxy = proxyFrame(input.width, input.height);
  const scale = proxy.factor === 1 ? '' : `,scale=${proxy.width}:${proxy.height}:flags=bicubic`;
  const segments = segmentFootage(input);
  const grid = searchGrid(input.codec, input.level);
  const proxyPixels = proxy.width * proxy.height;
  const trialFile = (crf: number) => `trial-${crf}.mkv`;
  const encodeArgs = (label: string, crf: number) => [
    ...['-map', label, ...settings.args(crf), '-an', '-sn', '-dn', '-f', 'matroska', trialFile(crf)],
  ];
  // One run decodes the segments once, filters and scales them, and writes both the lossless reference
  // (FFV1, first: the run's frame count is its) and the first trials: every trial's frames are the same
  // frames, and a run's start and the source's decode are paid once instead of once per trial.
  const perRun = settings.trialsPerRun;
  const first = grid.slice(0, perRun);
  const labels = first.map((_, i) => `[t${i}]`).join('');
  const cut = await runFfmpeg(
    [
      ...footageInputs(segments, run.bounds),
      '-filter_complex',
      `${footageGraph({ ...segments, filters: segments.filters + scale }, 0, 'scaled')};` +
        `[scaled]split=${first.length + 1}[proxy]${labels}`,
      ...['-map', '[proxy]', '-c:v', 'ffv1', '-threads', String(ENCODER_THREADS)],
      ...['-an', '-sn', '-dn', '-f', 'matroska', 'proxy.mkv'],
      ...first.flatMap((crf, i) => encodeArgs(`[t${i}]`, crf)),
    ],
    run,
    // The scaler's input is full size; the encoders' frames are the proxy's.
    {
      encoder: {
        memory: withInputs(
          trialsMemory(FFV1_MEMORY, settings.memory, first.length, proxyPixels, input.width * input.height),
          segments.windows.length,
        ),
        pixels: input.width * input.height,
      },
    },
  );
  // A cut can hold no frame: a trim inside the last frame's time, or a track that ended earlier than the
  // probe said. With none there is nothing to encode.
  if (cut.frames === 0) throw new NoVideoFramesError();
  const reference: Footage = {
    path: 'proxy.mkv',
    format: 'mkv',
    windows: [{ at: 0, length: undefined }],
    filters: 'null',
  };
  // Codecs whose encoders take too much memory to run many at once encode the rest from the reference.
  for (let at = perRun; at < grid.length; at += perRun) {
    const chunk = grid.slice(at, at + perRun);
    const split = chunk.map((_, i) => `[t${i}]`).join('');
    await runFfmpeg(
      [
        ...safeInputArgs('mkv', 'proxy.mkv', run.bounds),
        ...['-filter_complex', `[0:V:0]split=${chunk.length}${split}`],
        ...chunk.flatMap((crf, i) => encodeArgs(`[t${i}]`, crf)),
      ],
      run,
      {
        encoder: {
          memory: {
            baseBytes: settings.memory.baseBytes * chunk.length,
            bytesPerPixel: settings.memory.bytesPerPixel * chunk.length,
          },
          pixels: proxyPixels,
        },
      },
    );
  }
  const sampled = {
    width: proxy.width,
    height: proxy.height,
    frames: cut.frames,
    samples: segments.windows.length,
  };
  const scores = await scoreEncodes(
    grid.map((crf) => ({ path: trialFile(crf), format: 'mkv' })),
    reference,
    sampled,
    run,
  );
  const trials = grid.map((crf, i) => ({ crf, ...(scores[i] ?? { db: 0, ssimulacra2: 0 }) }));
  return { crf: pickCrf(trials, proxyTargets(input.level, proxy.factor), settings.range), trials };
}

/**
 * The memory of a run that decodes full-size frames, scales them and writes the FFV1 reference and `trials`
 * encodes of the proxy: each encoder its own base and frames.
 */
function trialsMemory(
  reference: EncoderMemory,
  encoder: EncoderMemory,
  trials: number,
  proxyPixels: number,
  fullPixels: number,
): EncoderMemory {
  // Expressed per full-size pixel, the unit the run's limit is computed in.
  const perFull = (reference.bytesPerPixel + trials * encoder.bytesPerPixel) * (proxyPixels / fullPixels);
  return { baseBytes: reference.baseBytes + trials * encoder.baseBytes, bytesPerPixel: Math.ceil(perFull) };
}

/**
 * The largest CRF whose scores, read between the grid's trials (linearly: both measures fall about evenly
 * with the CRF over a few steps), meet both targets, climbing from the lowest trial and stopping at the
 * first CRF that misses. When even the lowest trial misses, the answer is below it by the miss (missSteps),
 * within the codec's range; above the highest trial nothing is guessed.
 */
export function pickCrf(
  trials: readonly Trial[],
  targets: { db: number; ssimulacra2: number },
  range: readonly [number, number],
): number {
  const sorted = [...trials].sort((a, b) => a.crf - b.crf);
  const lowest = sorted[0];
  if (lowest === undefined) throw new Error('no trials');
  const miss = missSteps(lowest, targets);
  if (miss > 0) return Math.max(range[0], lowest.crf - Math.max(1, Math.ceil(miss)));
  let chosen = lowest.crf;
  for (let i = 0; i + 1 < sorted.length; i++) {
    const a = sorted[i] as Trial;
    const b = sorted[i + 1] as Trial;
    for (let crf = a.crf + 1; crf <= b.crf; crf++) {
      const t = (crf - a.crf) / (b.crf - a.crf);
      const at = {
        db: a.db + t * (b.db - a.db),
        ssimulacra2: a.ssimulacra2 + t * (b.ssimulacra2 - a.ssimulacra2),
      };
      if (missSteps(at, targets) > 0) return chosen;
      chosen = crf;
    }
  }
  return chosen;
}

/**
 * A miss in CRF steps: about 1 dB of SSIM (or 4 SSIMULACRA 2 points) per 2 CRF steps on natural video.
 * Positive when the scores are under the targets, the larger of the two misses.
 */
export function missSteps(
  scores: { db: number; ssimulacra2: number },
  targets: { db: number; ssimulacra2: number },
): number {
  return 2 * Math.max(targets.db - scores.db, (targets.ssimulacra2 - scores.ssimulacra2) / 4);
}
