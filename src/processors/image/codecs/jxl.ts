/**
 * JPEG XL output through libjxl's `cjxl` (sharp's libvips cannot save JXL): lossy by Butteraugli
 * distance, modular lossless, or lossless recompression of a JPEG's own DCT data (about 20 % smaller and
 * reversible to the original JPEG). `djxl` decodes trial outputs for the per-image distance search.
 */
import { runTool, type ToolRun } from '../../shared/run-tool.ts';

/** Encodes a PNG (decoded pixels) to JXL; distance 0 is lossless. */
export async function encodeJxl(png: string, output: string, distance: number, run: ToolRun): Promise<void> {
  await runTool('cjxl', [png, output, '-d', distance.toFixed(2), '--lossless_jpeg=0', '--quiet'], run);
}

/** Decodes a JXL to PNG (8-bit sRGB for the metric). */
export async function decodeJxl(jxl: string, png: string, run: ToolRun): Promise<void> {
  await runTool('djxl', [jxl, png, '--bits_per_sample=8', '--quiet'], run);
}

/** Recompresses a JPEG's coefficients losslessly (the JPEG can be restored bit-exact with djxl). */
export async function recompressJpegToJxl(jpeg: string, output: string, run: ToolRun): Promise<void> {
  await runTool('cjxl', [jpeg, output, '--lossless_jpeg=1', '--quiet'], run);
}
