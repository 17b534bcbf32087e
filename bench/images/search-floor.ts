/**
 * The floor of a verified output (issue 25): what any search must at least spend, one encode of the output
 * and one score of the whole output against the source. The benchmark's *search overhead* is the request's
 * CPU divided by this, and the floor divided by the peer's one encode says how low a CPU ratio can go at
 * all: a CPU target below that is out of reach whatever the search does.
 *
 * Measured in two parts, each in the caller's meter: the encode (source decode, colour conversion and the
 * encoder) and the score (decoding the source and the output, and one whole-output SSIMULACRA 2, as the
 * check does). The encode is at the level's fitted starting quality (search-model.ts), not the quality the
 * search found (the processor does not report it); an encoder's CPU moves little with its quality next to
 * the search's trials.
 *
 * PNG has no one lossy encode: its floor is what Presso runs once on its cheapest path, one palette PNG at
 * the level's libimagequant settings (paletteOptions) optimised by oxipng, plus the same whole-output score.
 */
import sharp from 'sharp';
import { optimisePng } from '../../src/processors/image/codecs/oxipng.ts';
import { applyEncoder, type LossyFormat } from '../../src/processors/image/encoders.ts';
import type { LossyLevel } from '../../src/processors/image/quality/targets.ts';
import { scoreWholeOutput } from '../../src/processors/image/quality/whole-score.ts';
import { searchStart } from '../../src/processors/image/search-model.ts';
import { decodeRgb } from '../../src/processors/shared/metric/pixels.ts';

const LOSSY = new Set(['jpeg', 'webp', 'avif']);
const LEVELS = new Set(['medium', 'high', 'ultra']);

/** Runs `work` and returns its CPU seconds (CpuMeter.measure in the worker). */
export type Measure = <T>(work: () => Promise<T>) => Promise<{ value: T; seconds: number }>;

export interface FloorCpu {
  /** One encode of the output (PNG: one palette + oxipng), from the file on disk, CPU ms. */
  encodeMs: number;
  /** Decoding source and output and one whole-output SSIMULACRA 2, CPU ms. */
  scoreMs: number;
}

/** Whether `format` at `level` has a floor here (lossy formats and PNG at the three lossy levels). */
export const hasFloor = (format: string, level: string) =>
  (LOSSY.has(format) || format === 'png') && LEVELS.has(level);

/** Measures the floor's two parts for `input` as `format` at `level`; undefined when it has none. */
export async function searchFloor(
  input: string,
  format: string,
  level: string,
  measure: Measure,
): Promise<FloorCpu | undefined> {
  if (!hasFloor(format, level)) return undefined;
  const lossyLevel = level as LossyLevel;
  const pipeline = sharp(input).autoOrient().toColourspace('srgb');
  const encode = await measure(async () => {
    const { hasAlpha = false } = await pipeline.metadata();
    if (format === 'png') {
      const palette = await applyEncoder(pipeline.clone(), 'png', { level: lossyLevel, hasAlpha }).toBuffer();
      return { output: await optimisePng(palette), hasAlpha };
    }
    const lossy = format as LossyFormat;
    const quality = searchStart(lossy, lossyLevel).start;
    const context = { level: lossyLevel, hasAlpha, quality };
    return { output: await applyEncoder(pipeline.clone(), lossy, context).toBuffer(), hasAlpha };
  });
  const { output, hasAlpha } = encode.value;
  const score = await measure(async () => {
    const flatten = format === 'jpeg' && hasAlpha;
    const reference = flatten ? pipeline.clone().flatten({ background: '#ffffff' }) : pipeline.clone();
    await scoreWholeOutput(await decodeRgb(reference), await decodeRgb(output));
  });
  return { encodeMs: encode.seconds * 1000, scoreMs: score.seconds * 1000 };
}
