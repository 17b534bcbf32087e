/**
 * Runs ffmpeg through the shared tool runner with the flags every call needs: no stdin, no banner, no
 * overwrite prompts, a fixed thread count (same request + same input = same bytes, whatever the load or
 * the machine's core count), a memory limit derived from the run's bounds (tool-memory.ts), and
 * `-progress pipe:1`, read for the caller's 0–1 fraction and for what was written: frames and end time.
 * A run whose decoders refused a frame over the frame limit, or whose output ran past the duration limit,
 * is a 422 that names the limit (decode-bounds.ts), even when ffmpeg itself exited 0.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { runTool, type ToolLimits } from '../shared/run-tool.ts';
import { type DecodeBounds, durationRefusal, frameLimitRefusal, type MediaRun } from './decode-bounds.ts';
import { type EncoderMemory, ffmpegMemoryBytes, memoryRefusal } from './tool-memory.ts';

/** Encoder threads: fixed so the bytes do not depend on the host; two is this service's reference machine. */
export const ENCODER_THREADS = 2;

export interface FfmpegOptions {
  /** File size and CPU limits; the memory limit comes from the run's bounds and `encoder`. */
  limits?: Partial<Omit<ToolLimits, 'memoryBytes'>>;
  /** The encoder this run feeds and the size of the frames it writes, for the memory limit. */
  encoder?: { memory: EncoderMemory; pixels: number };
  /** Receives the fraction done (0–1) of `expectedSeconds` of output as ffmpeg reports it. */
  onProgress?: (fraction: number) => void;
  /** Duration of the output, for progress; required with `onProgress`. */
  expectedSeconds?: number;
}

/** What a run wrote, from its last progress report. */
export interface FfmpegReport {
  /** Frames written to the first video output; 0 when there is none. */
  frames: number;
  /** End time of the output, in seconds; 0 when nothing was written. */
  seconds: number;
}

export async function runFfmpeg(
  args: string[],
  run: MediaRun,
  options: FfmpegOptions = {},
): Promise<FfmpegReport> {
  const { onProgress, expectedSeconds } = options;
  const report: FfmpegReport = { frames: 0, seconds: 0 };
  let pending = '';
  const onStdout = (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) readProgressLine(line, report);
    if (onProgress !== undefined && expectedSeconds !== undefined && expectedSeconds > 0) {
      onProgress(Math.min(1, report.seconds / expectedSeconds));
    }
  };
  // Global options go first: ffmpeg ignores trailing ones.
  const head = ['-nostdin', '-hide_banner', '-nostats', '-loglevel', 'error', '-y', '-progress', 'pipe:1'];
  const limits = { ...options.limits, memoryBytes: ffmpegMemoryBytes(run.bounds, options.encoder) };
  let log: string;
  try {
    ({ stderr: log } = await runTool('ffmpeg', [...head, ...args], run, {
      label: 'ffmpeg',
      limits,
      onStdout,
    }));
  } catch (error) {
    throw failedRunError(error, run.bounds);
  }
  // A decoder that could not have a frame (over the limit, or past the memory limit) is skipped by ffmpeg,
  // which then exits 0 with that frame missing.
  const refusal =
    frameLimitRefusal(log, run.bounds) ??
    memoryRefusal(log, run.bounds) ??
    durationRefusal(report.seconds, run.bounds);
  if (refusal !== undefined) throw refusal;
  return report;
}

/** One `key=value` line of `-progress`: `frame` counts the first video output, `out_time_us` is its end. */
function readProgressLine(line: string, report: FfmpegReport): void {
  const separator = line.indexOf('=');
  const key = line.slice(0, separator);
  const value = Number(line.slice(separator + 1));
  if (!Number.isFinite(value)) return; // "N/A" before the first packet
  if (key === 'frame') report.frames = value;
  if (key === 'out_time_us') report.seconds = value / 1e6;
}

/** A failed run that a decoder's refusal of a large frame or an allocation past the memory limit explains. */
function failedRunError(error: unknown, bounds: DecodeBounds): unknown {
  if (!(error instanceof UnprocessableInputError) || !(error.cause instanceof Error)) return error;
  const log = error.cause.message;
  return frameLimitRefusal(log, bounds) ?? memoryRefusal(log, bounds) ?? error;
}
