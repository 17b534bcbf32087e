/**
 * Footage: windows of a video file, after the encode's filters, joined in order (`concat`); and an encode
 * of it scored against it. One ffmpeg run decodes both once; SSIM over every frame (ffmpeg's `ssim`) and
 * SSIMULACRA 2 of sampled frames (the project's metric, which also sees colour and banding). Frames are
 * paired by their index, not their time: every frame is encoded (`-fps_mode vfr` for the output, Matroska
 * for trials), and a phone's variable frame rate or a container's rounding of timestamps would otherwise
 * pair a frame with its neighbour.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { DecodeBounds, MediaRun } from '../ffmpeg/decode-bounds.ts';
import { safeInputArgs, seekArgs } from '../ffmpeg/demuxers.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import type { EncoderMemory } from '../ffmpeg/tool-memory.ts';
import { measureSsimulacra2 } from '../shared/metric/score.ts';

export interface Footage {
  /** The file (the untrusted input goes through safeInputArgs like every other run). */
  path: string;
  format: string;
  /** Start and length of each window; length undefined: to the end. */
  windows: { at: number; length: number | undefined }[];
  /** Filter chain applied to each window, pixel format included. */
  filters: string;
}

/**
 * ffmpeg's inputs for the footage, one per window, each seeking to its start and stopping after it. Where
 * the demuxer cannot seek (seekArgs puts the seek after the input), the window is cut by `trim` instead:
 * an output option would apply to every input.
 */
export function footageInputs(footage: Footage, bounds: DecodeBounds): string[] {
  return footage.windows.flatMap(({ at, length }) => {
    const seek = seekArgs(footage.format, at);
    if (seek.after.length > 0) return safeInputArgs(footage.format, footage.path, bounds);
    const args = safeInputArgs(footage.format, footage.path, bounds);
    if (length === undefined) return [...seek.before, ...args];
    // The window's length goes last before `-i`, after the read limit's own `-t`, which it is within
    // (a window lies inside the probed duration, itself within the limit).
    const stop = ['-t', Math.min(length, bounds.maxDurationSeconds).toFixed(3)];
    return [...seek.before, ...args.slice(0, -2), ...stop, ...args.slice(-2)];
  });
}

function windowFilters(footage: Footage, window: Footage['windows'][number]): string {
  if (seekArgs(footage.format, window.at).after.length === 0) return footage.filters;
  const length = window.length === undefined ? '' : `:duration=${window.length.toFixed(3)}`;
  return `trim=start=${window.at.toFixed(3)}${length},setpts=PTS-STARTPTS,${footage.filters}`;
}

/** The filter graph giving the footage as `[label]`, its windows being inputs `first`, `first + 1`, …. */
export function footageGraph(footage: Footage, first: number, label: string): string {
  const { windows } = footage;
  const filters = (i: number) => windowFilters(footage, windows[i] ?? { at: 0, length: undefined });
  if (windows.length === 1) return `[${first}:V:0]${filters(0)}[${label}]`;
  const parts = windows.map((_, i) => `[${first + i}:V:0]${filters(i)}[${label}${i}]`);
  const joined = windows.map((_, i) => `[${label}${i}]`).join('');
  return `${parts.join(';')};${joined}concat=n=${windows.length}:v=1:a=0[${label}]`;
}

const INDEX_TIMES = 'settb=1/1000,setpts=N';
/** Every encode is 8-bit 4:2:0 (encoders.ts): SSIM is taken on those planes. */
const PLANAR = 'format=yuv420p';
const MB = 1024 ** 2;

/**
 * A run's memory for its encoder (or the scoring graph) plus the inputs beyond the first, each a demuxer and
 * a decoder of frames of about `pixels` (the run's own limit covers one): sized like tool-memory.ts's decode
 * figures (64 MB and 64 B/px each), not measured apart.
 */
export function withInputs(memory: EncoderMemory, inputs: number): EncoderMemory {
  const extra = Math.max(0, inputs - 1);
  return { baseBytes: memory.baseBytes + 64 * MB * extra, bytesPerPixel: memory.bytesPerPixel + 64 * extra };
}

/** The scoring graph: two decoded streams split, SSIM, two RGB conversions of the sampled frames. */
const SCORE_MEMORY: EncoderMemory = { baseBytes: 64 * MB, bytesPerPixel: 64 };

/** SSIMULACRA 2 samples: the middles of `count` equal parts of the frames. */
function sampleIndices(frames: number, count: number): number[] {
  return [
    ...new Set(Array.from({ length: count }, (_, i) => Math.floor((frames * (2 * i + 1)) / (2 * count)))),
  ];
}

/**
 * `encoded` (every frame of `reference`, in order) scored against it: mean SSIM in dB over every frame and
 * mean SSIMULACRA 2 of `samples` frames of width × height. `frames` is how many frames the encode wrote.
 */
export async function scoreEncoded(
  encoded: { path: string; format: string },
  reference: Footage,
  size: { width: number; height: number; frames: number; samples: number },
  run: MediaRun,
): Promise<{ db: number; ssimulacra2: number }> {
  const [scores] = await scoreEncodes([encoded], reference, size, run);
  if (scores === undefined) throw new Error('no scores for the encode');
  return scores;
}

/**
 * Several encodes of the same frames (a search's trials) scored against `reference` in one ffmpeg run: the
 * reference is decoded once and split, so n trials cost one run's start and one reference decode, not n.
 * Scores in the order of `encodes`, each as scoreEncoded's.
 */
export async function scoreEncodes(
  encodes: readonly { path: string; format: string }[],
  reference: Footage,
  size: { width: number; height: number; frames: number; samples: number },
  run: MediaRun,
): Promise<{ db: number; ssimulacra2: number }[]> {
  const n = encodes.length;
  const pick = sampleIndices(size.frames, size.samples)
    .map((i) => `eq(n\\,${i})`)
    .join('+');
  const refs = Array.from({ length: n }, (_, i) => `[s${i}]`).join('');
  // Time stamps become frame indices on both sides (frame n at n ms), so `ssim` pairs frame n with frame
  // n. Milliseconds keep the run's output time (which the duration limit checks) under the real one for
  // any rate up to 1000 frames a second.
  // Both sides are pinned to the encodes' 4:2:0 before they are split: left free, ffmpeg may pick RGB for a
  // split feeding the samples' conversion and convert back for `ssim` (it did with an input `-t` and
  // several encodes), which scored a round trip of the reference instead of the reference.
  const graph = [
    footageGraph(reference, n, 'ref'),
    `[ref]${INDEX_TIMES},${PLANAR},split=${n + 1}${refs}[sp]`,
    `[sp]select='${pick}',format=rgb24[rp]`,
    ...encodes.flatMap((_, i) => [
      `[${i}:V:0]${INDEX_TIMES},${PLANAR},split[o${i}][q${i}]`,
      `[o${i}][s${i}]ssim=stats_file=score-${i}.ssim:shortest=1,nullsink`,
      `[q${i}]select='${pick}',format=rgb24[op${i}]`,
    ]),
  ].join(';');
  const raw = (label: string, file: string) => [
    ...['-map', label, '-fps_mode', 'passthrough', '-f', 'rawvideo', file],
  ];
  await runFfmpeg(
    [
      ...encodes.flatMap((e) => safeInputArgs(e.format, e.path, run.bounds)),
      ...footageInputs(reference, run.bounds),
      '-filter_complex',
      graph,
      ...raw('[rp]', 'score-reference.rgb'),
      ...encodes.flatMap((_, i) => raw(`[op${i}]`, `score-encoded-${i}.rgb`)),
    ],
    run,
    {
      encoder: {
        memory: withInputs(SCORE_MEMORY, n + reference.windows.length),
        pixels: size.width * size.height,
      },
    },
  );
  const scores: { db: number; ssimulacra2: number }[] = [];
  for (let i = 0; i < n; i++) {
    let sum = 0;
    let frames = 0;
    const stats = await readFile(join(run.workDir, `score-${i}.ssim`), 'utf8');
    for (const match of stats.matchAll(/All:([\d.]+)/g)) {
      sum += Number(match[1]);
      frames++;
    }
    // ffmpeg exits 0 on an empty cut (a seek past the last frame, timestamps it cannot follow).
    if (frames === 0)
      throw new UnprocessableInputError('The video has no frames to encode in the requested part.');
    const ssimulacra2 = await sampledScore(size, `score-encoded-${i}.rgb`, run);
    scores.push({ db: ssimDb(sum / frames), ssimulacra2 });
  }
  return scores;
}

export function ssimDb(ssim: number): number {
  return ssim >= 1 ? 100 : -10 * Math.log10(1 - ssim);
}

async function sampledScore(
  size: { width: number; height: number },
  encoded: string,
  run: MediaRun,
): Promise<number> {
  const out = new Uint8Array(await readFile(join(run.workDir, encoded)));
  const ref = new Uint8Array(await readFile(join(run.workDir, 'score-reference.rgb')));
  const frameBytes = size.width * size.height * 3;
  const count = Math.min(out.length, ref.length) / frameBytes;
  if (!(count >= 1) || !Number.isInteger(count)) {
    throw new Error(
      `sampled frames of ${out.length} and ${ref.length} bytes for ${size.width}×${size.height}`,
    );
  }
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const frame = (data: Uint8Array) => ({
      data: data.slice(i * frameBytes, (i + 1) * frameBytes),
      width: size.width,
      height: size.height,
      channels: 3 as const,
    });
    sum += await measureSsimulacra2(frame(ref), frame(out));
  }
  return sum / count;
}
