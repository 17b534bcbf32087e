/**
 * Runs ffmpeg through the shared tool runner with the flags every call needs: no stdin, no banner, no
 * overwrite prompts, a fixed thread count (same request + same input = same bytes, whatever the load or
 * the machine's core count) and, when asked, `-progress pipe:1` turned into a 0–1 fraction.
 */
import { runTool, type ToolLimits, type ToolRun } from '../shared/run-tool.ts';

/** Encoder threads: fixed so the bytes do not depend on the host; two is this service's reference machine. */
export const ENCODER_THREADS = 2;

export interface FfmpegOptions {
  limits?: Partial<ToolLimits>;
  /** Receives the fraction done (0–1) of `expectedSeconds` of output as ffmpeg reports it. */
  onProgress?: (fraction: number) => void;
  /** Duration of the output, for progress; required with `onProgress`. */
  expectedSeconds?: number;
  captureStdout?: boolean;
}

export async function runFfmpeg(args: string[], run: ToolRun, options: FfmpegOptions = {}): Promise<string> {
  const { onProgress, expectedSeconds } = options;
  const progress = onProgress !== undefined && expectedSeconds !== undefined && expectedSeconds > 0;
  let pending = '';
  const onStdout = progress
    ? (chunk: Buffer) => {
        pending += chunk.toString('latin1');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          // out_time_us is microseconds of output written so far ("N/A" before the first packet).
          const match = /^out_time_us=(\d+)/.exec(line);
          if (match) onProgress(Math.min(1, Number(match[1]) / 1e6 / expectedSeconds));
        }
      }
    : undefined;
  // Global options go first: ffmpeg ignores trailing ones.
  const head = ['-nostdin', '-hide_banner', '-nostats', '-loglevel', 'error', '-y'];
  if (progress) head.push('-progress', 'pipe:1');
  const { stdout, stderr } = await runTool('ffmpeg', [...head, ...args], run, {
    label: 'ffmpeg',
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(onStdout === undefined ? {} : { onStdout }),
    captureStdout: options.captureStdout ?? false,
  });
  return options.captureStdout ? stdout : stderr;
}
