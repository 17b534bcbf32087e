/**
 * JPEG XL output through libjxl's `cjxl` (sharp's libvips cannot save JXL): lossy by Butteraugli
 * distance per level, modular lossless, or lossless recompression of a JPEG's own DCT data (about 20 %
 * smaller and reversible to the original JPEG).
 */
import type { CompressionLevel } from '../params.ts';
import { runTool, type ToolRun } from '../run-tool.ts';

/** Butteraugli distance: 1.0 is visually lossless at normal viewing; libjxl's default is 1.0. */
const DISTANCE: Record<Exclude<CompressionLevel, 'lossless'>, number> = {
  medium: 1.0,
  high: 1.5,
  ultra: 2.5,
};

/** Encodes a PNG (decoded pixels) to JXL. */
export function encodeJxl(png: string, output: string, level: CompressionLevel, run: ToolRun): Promise<void> {
  const distance = level === 'lossless' ? 0 : DISTANCE[level];
  return runTool('cjxl', [png, output, '-d', String(distance), '--lossless_jpeg=0', '--quiet'], run);
}

/** Recompresses a JPEG's coefficients losslessly (the JPEG can be restored bit-exact with djxl). */
export function recompressJpegToJxl(jpeg: string, output: string, run: ToolRun): Promise<void> {
  return runTool('cjxl', [jpeg, output, '--lossless_jpeg=1', '--quiet'], run);
}
