/**
 * Picks the quantiser (CRF) per video: a few short segments, sampled evenly across the part being
 * encoded, are cut once to a lossless reference (FFV1, after the same filters as the final encode), then
 * encoded at trial CRFs and scored against it with ffmpeg's `ssim` filter. The answer is the largest CRF
 * (smallest file) whose mean SSIM meets the level's target. The budget counts trials, never seconds, so
 * the same request on the same input gives the same bytes whatever the load.
 */
import { readFile } from 'node:fs/promises';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { safeInputArgs, seekArgs } from '../ffmpeg/demuxers.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import type { ToolRun } from '../shared/run-tool.ts';
import { CODEC_SETTINGS } from './encoders.ts';
import type { VideoCodec } from './params.ts';

/** Mean SSIM (all planes) each lossy level must reach, in dB (-10·log10(1 − SSIM)). */
export const SSIM_TARGET_DB = { medium: 20, high: 17.5, ultra: 15 } as const;
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
}

export interface SearchResult {
  crf: number;
  /** CRF → SSIM dB of every trial, in the order tried. */
  trials: { crf: number; db: number }[];
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

export async function searchCrf(input: SearchInput, run: ToolRun): Promise<SearchResult> {
  const settings = CODEC_SETTINGS[input.codec];
  const references: string[] = [];
  for (const [i, segment] of segmentStarts(input.start, input.duration).entries()) {
    const ref = `ref-${i}.mkv`;
    const seek = seekArgs(input.format, segment.at);
    await runFfmpeg(
      [
        ...seek.before,
        ...safeInputArgs(input.format, input.path),
        ...seek.after,
        '-t',
        segment.length.toFixed(3),
        '-map',
        '0:V:0',
        '-vf',
        input.filters,
        '-c:v',
        'ffv1',
        '-an',
        '-sn',
        '-dn',
        '-f',
        'matroska',
        ref,
      ],
      run,
    );
    references.push(ref);
  }
  const target = SSIM_TARGET_DB[input.level];
  const [lowest, highest] = settings.range;
  const trials: SearchResult['trials'] = [];
  const scoreAt = async (crf: number): Promise<number> => {
    const known = trials.find((t) => t.crf === crf);
    if (known !== undefined) return known.db;
    const db = await scoreTrial(references, input.codec, crf, trials.length, run);
    trials.push({ crf, db });
    return db;
  };
  // Bracket [good, bad]: `good` meets the target, `bad` does not; narrow it by interpolation in dB.
  let good: number | undefined;
  let bad: number | undefined;
  let crf = settings.start[input.level];
  for (let i = 0; i < MAX_TRIALS; i++) {
    const db = await scoreAt(crf);
    if (db >= target) good = Math.max(good ?? crf, crf);
    else bad = Math.min(bad ?? crf, crf);
    const next = nextCrf(good, bad, crf, db, target, lowest, highest);
    if (next === undefined || trials.some((t) => t.crf === next)) break;
    crf = next;
  }
  // Nothing met the target: the best quality tried (the lowest CRF).
  const chosen = good ?? Math.min(...trials.map((t) => t.crf));
  return { crf: chosen, trials };
}

/** About 1 dB of SSIM per 2 CRF steps on natural video: a first step sized by the miss. */
function nextCrf(
  good: number | undefined,
  bad: number | undefined,
  crf: number,
  db: number,
  target: number,
  lowest: number,
  highest: number,
): number | undefined {
  if (good !== undefined && bad !== undefined) {
    if (bad - good <= 1) return undefined;
    return Math.floor((good + bad) / 2);
  }
  const step = Math.max(1, Math.min(6, Math.round(Math.abs(db - target) * 2)));
  const next = db >= target ? crf + step : crf - step;
  const clamped = Math.min(highest, Math.max(lowest, next));
  return clamped === crf ? undefined : clamped;
}

async function scoreTrial(
  references: string[],
  codec: VideoCodec,
  crf: number,
  trial: number,
  run: ToolRun,
): Promise<number> {
  let sum = 0;
  let frames = 0;
  for (const [i, ref] of references.entries()) {
    const encoded = `trial-${trial}-${i}.mkv`;
    const stats = `trial-${trial}-${i}.ssim`;
    await runFfmpeg(
      [...safeInputArgs('mkv', ref), ...CODEC_SETTINGS[codec].args(crf), '-an', '-f', 'matroska', encoded],
      run,
    );
    await runFfmpeg(
      [
        ...safeInputArgs('mkv', encoded),
        ...safeInputArgs('mkv', ref),
        '-lavfi',
        `[0:v][1:v]ssim=stats_file=${stats}`,
        '-f',
        'null',
        '-',
      ],
      run,
    );
    const text = await readFile(`${run.workDir}/${stats}`, 'utf8');
    for (const match of text.matchAll(/All:([\d.]+)/g)) {
      sum += Number(match[1]);
      frames++;
    }
  }
  // ffmpeg exits 0 on an empty cut (a seek past the last frame, timestamps it cannot follow).
  if (frames === 0)
    throw new UnprocessableInputError('The video has no frames to encode in the requested part.');
  return ssimDb(sum / frames);
}
