/**
 * Picks the quantiser (CRF) per video: a few short segments, sampled evenly across the part being
 * encoded, are cut once to a lossless reference (FFV1, after the same filters as the final encode), then
 * encoded at trial CRFs and scored against it with ffmpeg's `ssim` filter (every frame) and the project's
 * SSIMULACRA 2 (each segment's middle frame). The answer is the largest CRF (smallest file) whose scores
 * both meet the level's targets. The budget counts trials, never seconds, so
 * the same request on the same input gives the same bytes whatever the load.
 */
import { readFile } from 'node:fs/promises';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { safeInputArgs, seekArgs } from '../ffmpeg/demuxers.ts';
import { ENCODER_THREADS, runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import { FFV1_MEMORY } from '../ffmpeg/tool-memory.ts';
import { CODEC_SETTINGS } from './encoders.ts';
import { frameSsimulacra2 } from './frame-score.ts';
import type { VideoCodec } from './params.ts';

/** Mean SSIM (all planes) each lossy level must reach, in dB (-10·log10(1 − SSIM)). */
export const SSIM_TARGET_DB = { medium: 20, high: 17.5, ultra: 15 } as const;
/** SSIMULACRA 2 each level's sampled frames must reach on average (the image levels' scale). */
export const SSIMULACRA2_TARGET = { medium: 80, high: 72, ultra: 60 } as const;
export type LossyLevel = keyof typeof SSIM_TARGET_DB;

/** Trials per video: each is one encode and one score per segment. */
export const MAX_TRIALS = 4;
const SEGMENT_SECONDS = 1;
const SEGMENTS = 3;

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
  /** The filtered frame's size, for the sampled frames. */
  width: number;
  height: number;
}

export interface SearchResult {
  crf: number;
  /** Every trial's CRF, SSIM dB and sampled-frame SSIMULACRA 2, in the order tried. */
  trials: Trial[];
}

export interface Trial {
  crf: number;
  db: number;
  ssimulacra2: number;
}

interface Reference {
  file: string;
  /** Middle of the segment, where its sampled frame is. */
  middle: number;
}

/** The part to encode holds no video frame. The processor says why, in the caller's terms. */
export class NoVideoFramesError extends Error {
  constructor() {
    super('the part to encode holds no video frame');
    this.name = 'NoVideoFramesError';
  }
}

export function ssimDb(ssim: number): number {
  return ssim >= 1 ? 100 : -10 * Math.log10(1 - ssim);
}

/** Segment start times: the whole part when it is short, else `SEGMENTS` evenly spaced windows. */
export function segmentStarts(start: number, duration: number): { at: number; length: number }[] {
  if (duration <= SEGMENTS * SEGMENT_SECONDS) return [{ at: start, length: duration }];
  const stride = duration / SEGMENTS;
  return Array.from({ length: SEGMENTS }, (_, i) => ({
    at: start + stride * i + (stride - SEGMENT_SECONDS) / 2,
    length: SEGMENT_SECONDS,
  }));
}

export async function searchCrf(input: SearchInput, run: MediaRun): Promise<SearchResult> {
  const settings = CODEC_SETTINGS[input.codec];
  const references: Reference[] = [];
  for (const [i, segment] of segmentStarts(input.start, input.duration).entries()) {
    const ref = `ref-${i}.mkv`;
    const seek = seekArgs(input.format, segment.at);
    const cut = await runFfmpeg(
      [
        ...seek.before,
        ...safeInputArgs(input.format, input.path, run.bounds),
        ...seek.after,
        '-t',
        segment.length.toFixed(3),
        '-map',
        '0:V:0',
        '-vf',
        input.filters,
        '-c:v',
        'ffv1',
        '-threads',
        String(ENCODER_THREADS),
        '-an',
        '-sn',
        '-dn',
        '-f',
        'matroska',
        ref,
      ],
      run,
      { encoder: { memory: FFV1_MEMORY, pixels: input.width * input.height } },
    );
    // A cut can hold no frame: a trim inside the last frame's time, or a track that ended earlier than
    // the probe said. Such a segment has nothing to score; with none left there is nothing to encode.
    if (cut.frames > 0) references.push({ file: ref, middle: segment.length / 2 });
  }
  if (references.length === 0) throw new NoVideoFramesError();
  const target = SSIM_TARGET_DB[input.level];
  const s2Target = SSIMULACRA2_TARGET[input.level];
  const [lowest, highest] = settings.range;
  const trials: Trial[] = [];
  const size = { width: input.width, height: input.height };
  const scoreAt = async (crf: number): Promise<Trial> => {
    const trial = { crf, ...(await scoreTrial(references, input.codec, crf, trials.length, size, run)) };
    trials.push(trial);
    return trial;
  };
  // Bracket [good, bad]: `good` meets the target, `bad` does not; narrow it by interpolation in dB.
  let good: number | undefined;
  let bad: number | undefined;
  let crf = settings.start[input.level];
  for (let i = 0; i < MAX_TRIALS; i++) {
    const trial = await scoreAt(crf);
    // Both metrics must meet the level; the step is sized by the larger miss, each in CRF-like units.
    const meets = trial.db >= target && trial.ssimulacra2 >= s2Target;
    if (meets) good = Math.max(good ?? crf, crf);
    else bad = Math.min(bad ?? crf, crf);
    const miss = meets
      ? Math.min(trial.db - target, (trial.ssimulacra2 - s2Target) / 4)
      : Math.max(target - trial.db, (s2Target - trial.ssimulacra2) / 4);
    const next = nextCrf(good, bad, crf, meets, miss, lowest, highest);
    if (next === undefined || trials.some((t) => t.crf === next)) break;
    crf = next;
  }
  // Nothing met the target: the best quality tried (the lowest CRF).
  const chosen = good ?? Math.min(...trials.map((t) => t.crf));
  return { crf: chosen, trials };
}

/**
 * About 1 dB of SSIM (or 4 SSIMULACRA 2 points) per 2 CRF steps on natural video: a first step sized by
 * the miss, then bisection of the bracket.
 */
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
  const step = Math.max(1, Math.min(6, Math.round(Math.abs(miss) * 2)));
  const next = meets ? crf + step : crf - step;
  const clamped = Math.min(highest, Math.max(lowest, next));
  return clamped === crf ? undefined : clamped;
}

async function scoreTrial(
  references: Reference[],
  codec: VideoCodec,
  crf: number,
  trial: number,
  size: { width: number; height: number },
  run: MediaRun,
): Promise<{ db: number; ssimulacra2: number }> {
  let sum = 0;
  let frames = 0;
  let s2 = 0;
  for (const [i, { file: ref, middle }] of references.entries()) {
    const encoded = `trial-${trial}-${i}.mkv`;
    const stats = `trial-${trial}-${i}.ssim`;
    await runFfmpeg(
      [
        ...safeInputArgs('mkv', ref, run.bounds),
        ...CODEC_SETTINGS[codec].args(crf),
        '-an',
        '-f',
        'matroska',
        encoded,
      ],
      run,
      { encoder: { memory: CODEC_SETTINGS[codec].memory, pixels: size.width * size.height } },
    );
    await runFfmpeg(
      [
        ...safeInputArgs('mkv', encoded, run.bounds),
        ...safeInputArgs('mkv', ref, run.bounds),
        '-lavfi',
        `[0:v][1:v]ssim=stats_file=${stats}`,
        '-f',
        'null',
        '-',
      ],
      run,
    );
    s2 += await frameSsimulacra2(ref, encoded, middle, size, run);
    const text = await readFile(`${run.workDir}/${stats}`, 'utf8');
    for (const match of text.matchAll(/All:([\d.]+)/g)) {
      sum += Number(match[1]);
      frames++;
    }
  }
  // ffmpeg exits 0 on an empty cut (a seek past the last frame, timestamps it cannot follow).
  if (frames === 0)
    throw new UnprocessableInputError('The video has no frames to encode in the requested part.');
  return { db: ssimDb(sum / frames), ssimulacra2: s2 / references.length };
}
