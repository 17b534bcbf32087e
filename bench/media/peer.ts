/**
 * The media benchmark's peer and its two quality measures. The peer is libx264 at `-preset medium` (its
 * defaults) with AAC 128k audio, keeping every frame at its own time (`-fps_mode vfr`, as Presso does: the
 * constant-rate default repeats frames of a phone's variable-rate video, and repeats score well against the
 * source while costing few bytes). Quality is measured two ways, on the whole output against the source:
 * SSIM over every frame (ffmpeg's `ssim`), and SSIMULACRA 2 on frames sampled evenly over the clip (the
 * project's native metric), which sees colour and blur that a tuning for SSIM would not be rewarded for.
 *
 * Frames are paired by index, not by time: an AVI carries no time for most frames (Megamind.avi's MPEG-4 with
 * B-frames: "pts N/A"), so its decoded frames start at 0 while an encode of it starts one frame later, and
 * ffmpeg's time-synced `ssim` compared every output frame with the next source frame (9.5 dB instead of ∞ for
 * a lossless encode of such a clip, test/bench/media-pairing.test.ts). `-fps_mode vfr` keeps every frame on
 * both sides (Presso's encode and the peer's), so the i-th frame of one is the i-th of the other, for
 * constant and variable frame rates alike. Should the counts differ (an encoder dropped a frame with a
 * repeated time), frames are paired by time from each file's first frame instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { measureSsimulacra2 } from '../../src/processors/shared/metric/score.ts';

const SAMPLED_FRAMES = 4;

export function ff(args: string[]): void {
  execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

export function durationOf(path: string): number {
  return Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]),
  );
}

/** The clip's displayed width and height. */
export function frameSize(path: string): { width: number; height: number } {
  const [width, height] = execFileSync('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0'],
    path,
  ])
    .toString()
    .trim()
    .split(',')
    .map(Number);
  return { width: width ?? 0, height: height ?? 0 };
}

const counted = new Map<string, number>();

/** Decoded frames of the first video stream (AVI headers and MP4 edit lists do not say it reliably). */
export function frameCount(path: string): number {
  const known = counted.get(path);
  if (known !== undefined) return known;
  const out = execFileSync('ffprobe', [
    ...['-v', 'error', '-count_frames', '-select_streams', 'v:0'],
    ...['-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', path],
  ]);
  const frames = Number(out.toString().trim());
  if (!Number.isInteger(frames) || frames <= 0) throw new Error(`no video frames counted in ${path}`);
  counted.set(path, frames);
  return frames;
}

/** How `encoded`'s frames are paired with `source`'s: by index when both have every frame, else by time. */
export function pairing(encoded: string, source: string): 'index' | 'time' {
  return frameCount(encoded) === frameCount(source) ? 'index' : 'time';
}

/** The filter that gives one input its pairing times: its frame index, or its time from its first frame. */
const ALIGN = { index: 'settb=1/1000,setpts=N', time: 'setpts=PTS-STARTPTS' } as const;

/** Mean SSIM (all planes) in dB of `encoded` against `source`, every frame, paired by `pairing`. */
export function ssimDb(encoded: string, source: string): number {
  const align = ALIGN[pairing(encoded, source)];
  const run = spawnSync('ffmpeg', [
    ...['-nostdin', '-hide_banner', '-i', encoded, '-i', source],
    ...['-lavfi', `[0:v]${align}[a];[1:v]${align}[b];[a][b]ssim`, '-f', 'null', '-'],
  ]);
  const ssim = Number(/All:([\d.]+)/.exec(run.stderr.toString())?.[1]);
  return -10 * Math.log10(1 - ssim);
}

type Size = { width: number; height: number };

function frameAt(path: string, seconds: number, size: Size, out: string) {
  ff([
    ...['-i', path, '-vf', `setpts=PTS-STARTPTS,trim=start=${seconds.toFixed(3)}`, '-frames:v', '1'],
    ...['-s', `${size.width}x${size.height}`, '-pix_fmt', 'rgb24', '-f', 'rawvideo', out],
  ]);
  const data = new Uint8Array(readFileSync(out));
  rmSync(out);
  return { data, ...size, channels: 3 as const };
}

/** The frames numbered `indices` of `path`, in one decode, each scaled to `size`. */
function framesAt(path: string, indices: number[], size: Size, out: string) {
  const select = `select=${indices.map((n) => `eq(n\\,${n})`).join('+')}`;
  ff([
    ...['-i', path, '-vf', select, '-fps_mode', 'passthrough', '-s', `${size.width}x${size.height}`],
    ...['-pix_fmt', 'rgb24', '-f', 'rawvideo', out],
  ]);
  const all = new Uint8Array(readFileSync(out));
  rmSync(out);
  const bytes = size.width * size.height * 3;
  return indices.map((_, i) => ({
    data: all.subarray(i * bytes, (i + 1) * bytes),
    ...size,
    channels: 3 as const,
  }));
}

const sourceSamples = new Map<string, ReturnType<typeof framesAt>>();

/**
 * Mean SSIMULACRA 2 of frames sampled evenly over the clip (each the middle frame of its quarter), paired
 * by index (or by time from the first frame, see `pairing`).
 */
export async function sampledSsimulacra2(encoded: string, source: string, work: string): Promise<number> {
  const size = frameSize(source);
  const byIndex = pairing(encoded, source) === 'index';
  const frames = frameCount(source);
  const indices = Array.from({ length: SAMPLED_FRAMES }, (_, i) =>
    Math.floor((frames * (i + 0.5)) / SAMPLED_FRAMES),
  );
  const seconds = durationOf(source);
  const sampled = (path: string, name: string) =>
    byIndex
      ? framesAt(path, indices, size, join(work, name))
      : indices.map((_, i) => frameAt(path, (seconds * (i + 0.5)) / SAMPLED_FRAMES, size, join(work, name)));
  // The source's samples are the same for every encode measured against it (a peer search measures ~8).
  const key = `${byIndex ? 'index' : 'time'}|${source}`;
  const references = sourceSamples.get(key) ?? sampled(source, 'sample-ref.rgb');
  sourceSamples.set(key, references);
  const distorted = sampled(encoded, 'sample-enc.rgb');
  let sum = 0;
  let count = 0;
  for (let i = 0; i < SAMPLED_FRAMES; i++) {
    const reference = references[i]!;
    const output = distorted[i]!;
    // A time past a file's last frame (its duration counts the audio too) gives no frame: not sampled.
    const bytes = size.width * size.height * 3;
    if (reference.data.length !== bytes || output.data.length !== bytes) continue;
    sum += await measureSsimulacra2(reference, output);
    count++;
  }
  if (count === 0) throw new Error(`no frame sampled from ${encoded}`);
  return sum / count;
}

/** libx264 defaults (preset medium) at `crf`, every frame at its own time, AAC 128k audio like Presso's. */
export function x264(source: string, crf: number, out: string): number {
  ff([
    ...['-i', source, '-map', '0:V:0', '-map', '0:a:0?', '-vf', 'setsar=1,format=yuv420p'],
    ...['-fps_mode', 'vfr', '-c:v', 'libx264', '-crf', String(crf), '-preset', 'medium'],
    ...['-c:a', 'aac', '-b:a', '128k', out],
  ]);
  return statSync(out).size;
}

export interface PeerPoint {
  crf: number;
  bytes: number;
  db: number;
  ssimulacra2: number;
}

/**
 * The peer's encodes, one per CRF (kept between the two searches), each measured both ways. `at` finds the
 * largest CRF (smallest file) whose measure is at least `target`, by bisection over `near` ± 8 (Presso's
 * CRF: the same encoder at the same quality lands close to it).
 */
export class Peer {
  readonly #points = new Map<number, PeerPoint>();
  readonly source: string;
  readonly work: string;
  constructor(source: string, work: string) {
    this.source = source;
    this.work = work;
  }

  async point(crf: number): Promise<PeerPoint> {
    const known = this.#points.get(crf);
    if (known !== undefined) return known;
    const out = join(this.work, `peer-${crf}.mp4`);
    const bytes = x264(this.source, crf, out);
    const point = {
      crf,
      bytes,
      db: ssimDb(out, this.source),
      ssimulacra2: await sampledSsimulacra2(out, this.source, this.work),
    };
    rmSync(out);
    this.#points.set(crf, point);
    return point;
  }

  async at(measure: 'db' | 'ssimulacra2', target: number, near: number): Promise<PeerPoint> {
    let lo = Math.max(10, Math.floor(near) - 8); // taken as meeting
    let hi = Math.min(52, Math.floor(near) + 9); // taken as failing
    let best: PeerPoint | undefined;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const point = await this.point(mid);
      if (point[measure] >= target) {
        lo = mid;
        best = point;
      } else hi = mid;
    }
    return best ?? this.point(lo);
  }
}
