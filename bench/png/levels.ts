/**
 * PNG at every lossy level on the given files: bytes, the whole-image SSIMULACRA 2, the path taken
 * (palette quality and dithering, near-lossless step, lossless) and CPU per level. The before/after table
 * of docs/benchmarks.md (PNG palette search) comes from it:
 *   node bench/png/levels.ts FILE.png [...]
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { type PngTuningReport, tunedPng } from '../../src/processors/image/png-tuning.ts';
import { decodeRgb } from '../../src/processors/shared/metric/pixels.ts';
import { measureSsimulacra2 } from '../../src/processors/shared/metric/score.ts';
import type { RgbImage } from '../../src/processors/shared/metric/ssimulacra2.ts';

const withAlpha = (image: RgbImage): Promise<RgbImage> =>
  image.channels === 4
    ? Promise.resolve(image)
    : decodeRgb(sharp(image.data, { raw: { ...image, channels: 3 } }).ensureAlpha());

const scratch = join(tmpdir(), `presso-png-levels-${process.pid}.png`);
for (const file of process.argv.slice(2)) {
  const input = await readFile(file);
  const reference = await decodeRgb(input);
  const lines: string[] = [];
  for (const level of ['medium', 'high', 'ultra'] as const) {
    const report: PngTuningReport = { trials: 0 };
    const before = process.cpuUsage();
    await (await tunedPng(sharp(input), level, report)).toFile(scratch);
    const cpu = process.cpuUsage(before);
    const png = await readFile(scratch);
    let [a, b] = [reference, await decodeRgb(png)];
    if (a.channels !== b.channels) [a, b] = [await withAlpha(a), await withAlpha(b)];
    const score = await measureSsimulacra2(a, b);
    const path = report.palette
      ? `palette q${report.palette.quality} dither ${report.palette.dither}`
      : report.fallback === 'near-lossless'
        ? `near-lossless step ${report.quality}`
        : 'lossless';
    const seconds = ((cpu.user + cpu.system) / 1e6).toFixed(2);
    lines.push(
      `  ${level}: ${png.length} B, ${score.toFixed(1)}, ${path}, ${report.trials} trials, ${seconds} CPU s`,
    );
  }
  console.log(
    `${basename(file)} (${input.length} B, ${reference.width}×${reference.height})\n${lines.join('\n')}`,
  );
}
await rm(scratch, { force: true });
