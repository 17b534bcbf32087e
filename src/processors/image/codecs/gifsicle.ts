/**
 * gifsicle's optimiser for GIF output: frame-difference cropping and, for lossy levels, its LZW-aware
 * lossy mode. It often beats libvips' GIF writer on animations; the caller keeps whichever is smaller.
 */

import { runTool, type ToolRun } from '../../shared/run-tool.ts';
import type { CompressionLevel } from '../params.ts';

const LOSSY: Record<CompressionLevel, number> = { medium: 20, high: 40, ultra: 80, lossless: 0 };

export async function optimiseGif(
  input: string,
  output: string,
  level: CompressionLevel,
  run: ToolRun,
): Promise<void> {
  const args = ['--no-warnings', '-O3'];
  if (LOSSY[level] > 0) args.push(`--lossy=${LOSSY[level]}`);
  await runTool('gifsicle', [...args, '-o', output, input], run);
}
