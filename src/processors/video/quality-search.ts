/**
 * Picks the quantiser (CRF) per video on a proxy: a few short segments, sampled evenly across the part
 * being encoded, are cut once to a lossless reference (FFV1, after the same filters as the final encode,
 * then scaled down to at most PROXY_PIXELS), encoded at trial CRFs and scored against it with ffmpeg's
 * `ssim` filter (every frame) and the project's SSIMULACRA 2 (each segment's middle frame). The answer is
 * the largest CRF (smallest file) whose scores both meet the level's targets, lowered by the measured
 * offset between a proxy's scores and the full frame's (PROXY_OFFSET). The final encode is the only
 * full-size encode; output-check.ts scores it against the source and the processor encodes again, lower,
 * when it misses. The budget counts trials, never seconds, so the same request on the same input gives the
 * same bytes whatever the load.
 */
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { safeInputArgs } from '../ffmpeg/demuxers.ts';
import { ENCODER_THREADS, runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import { FFV1_MEMORY } from '../ffmpeg/tool-memory.ts';
import { CODEC_SETTINGS } from './encoders.ts';
import { type Footage, footageGraph, footageInputs, scoreEncoded, withInputs } from './footage.ts';
import type { VideoCodec } from './params.ts';

/** Mean SSIM (all planes) each lossy level must reach, in dB (-10·log10(1 − SSIM)). */
export const SSIM_TARGET_DB = { medium: 20, high: 17.5, ultra: 15 } as const;
/** SSIMULACRA 2 each level's sampled frames must reach on average (the image levels' scale). */
export const SSIMULACRA2_TARGET = { medium: 80, high: 72, ultra: 60 } as const;
export type LossyLevel = keyof typeof SSIM_TARGET_DB;

/** Trials per video: each is one encode and one score per segment, on the proxy. */
export const MAX_TRIALS = 4;
const SEGMENT_SECONDS = 1;
const SEGMENTS = 3;
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

export async function searchCrf(input: SearchInput, run: MediaRun): Promise<SearchResult> {
  const settings = CODEC_SETTINGS[input.codec];
  const proxy = proxyFrame(input.width, input.height);
  const scale = proxy.factor === 1 ? '' : `,scale=${proxy.width}:${proxy.height}:flags=bicubic`;
  const segments = segmentFootage(input);
  // The segments, filtered and scaled, cut once into one lossless reference (FFV1): each trial encodes it.
  const cut = await runFfmpeg(
    [
      ...footageInputs(segments, run.bounds),
      '-filter_complex',
      footageGraph({ ...segments, filters: segments.filters + scale }, 0, 'proxy'),
      ...['-map', '[proxy]', '-c:v', 'ffv1', '-threads', String(ENCODER_THREADS)],
      ...['-an', '-sn', '-dn', '-f', 'matroska', 'proxy.mkv'],
    ],
    run,
    // The scaler's input is full size.
    {
      encoder: {
        memory: withInputs(FFV1_MEMORY, segments.windows.length),
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
  const sampled = {
    width: proxy.width,
    height: proxy.height,
    frames: cut.frames,
    samples: segments.windows.length,
  };
  const targets = proxyTargets(input.level, proxy.factor);
  const [lowest, highest] = settings.range;
  const trials: Trial[] = [];
  // Bracket [good, bad]: `good` meets the target, `bad` does not; narrow it by interpolation in dB.
  let good: number | undefined;
  let bad: number | undefined;
  let crf = settings.start[input.level];
  for (let i = 0; i < MAX_TRIALS; i++) {
    const encoded = `trial-${i}.mkv`;
    await runFfmpeg(
      [
        ...safeInputArgs('mkv', 'proxy.mkv', run.bounds),
        ...settings.args(crf),
        '-an',
        '-f',
        'matroska',
        encoded,
      ],
      run,
      { encoder: { memory: settings.memory, pixels: proxy.width * proxy.height } },
    );
    const trial = { crf, ...(await scoreEncoded({ path: encoded, format: 'mkv' }, reference, sampled, run)) };
    trials.push(trial);
    // Both metrics must meet the level; the step is sized by the larger miss, in CRF steps.
    const miss = missSteps(trial, targets);
    const meets = miss <= 0;
    if (meets) good = Math.max(good ?? crf, crf);
    else bad = Math.min(bad ?? crf, crf);
    const next = nextCrf(good, bad, crf, meets, miss, lowest, highest);
    if (next === undefined || trials.some((t) => t.crf === next)) break;
    crf = next;
  }
  // Nothing met the target: the best quality tried (the lowest CRF).
  const chosen = good ?? Math.min(...trials.map((t) => t.crf));
  return { crf: chosen, trials };
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

/** A first step sized by the miss, then bisection of the bracket. */
function nextCrf(
  good: number | undefined,
  bad: number | undefined,
  crf: number,
  meets: boolean,
  miss: number,
  lowest: number,
  highest: number,
): number | undefined {
  if (good !== undefined && bad !== undefined) {
    if (bad - good <= 1) return undefined;
    return Math.floor((good + bad) / 2);
  }
  const step = Math.max(1, Math.min(6, Math.round(Math.abs(miss))));
  const next = meets ? crf + step : crf - step;
  const clamped = Math.min(highest, Math.max(lowest, next));
  return clamped === crf ? undefined : clamped;
}
