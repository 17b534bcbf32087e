/**
 * gifsicle's optimiser for GIF output: frame-difference cropping and, for lossy levels, its LZW-aware
 * lossy mode. It often beats libvips' GIF writer on animations; the caller keeps whichever is smaller.
 */
import type { CompressionLevel } from '../params.ts';
import { runTool, type ToolRun } from '../run-tool.ts';

const LOSSY: Record<CompressionLevel, number> = { medium: 20, high: 40, ultra: 80, lossless: 0 };

export function optimiseGif(
  input: string,
  output: string,
  level: CompressionLevel,
  run: ToolRun,
): Promise<void> {
  const args = ['--no-warnings', '-O3'];
  if (LOSSY[level] > 0) args.push(`--lossy=${LOSSY[level]}`);
  return runTool('gifsicle', [...args, '-o', output, input], run);
}
