/**
 * The floor of a verified output (issue 25): what any search must at least spend, one encode of the output
 * and one score of the whole output against the source. The benchmark's *search overhead* is the request's
 * CPU divided by this. The encode is at the level's fitted starting quality (search-model.ts), not the
 * quality the search found (the processor does not report it); an encoder's CPU moves little with its
 * quality next to the search's trials. The score includes decoding the source and the output, as the check
 * does. Lossy formats only: a PNG's floor (a palette search, oxipng) is not one encode.
 */
import sharp from 'sharp';
import { applyEncoder, type LossyFormat } from '../../src/processors/image/encoders.ts';
import type { LossyLevel } from '../../src/processors/image/quality/targets.ts';
import { scoreWholeOutput } from '../../src/processors/image/quality/whole-score.ts';
import { searchStart } from '../../src/processors/image/search-model.ts';
import { decodeRgb } from '../../src/processors/shared/metric/pixels.ts';

const LOSSY = new Set(['jpeg', 'webp', 'avif']);
const LEVELS = new Set(['medium', 'high', 'ultra']);

/** Runs the floor's work for `input` as `format` at `level`; false when it has none (PNG, lossless…). */
export async function searchFloor(input: string, format: string, level: string): Promise<boolean> {
  if (!LOSSY.has(format) || !LEVELS.has(level)) return false;
  const lossy = format as LossyFormat;
  const pipeline = sharp(input).autoOrient().toColourspace('srgb');
  const { hasAlpha = false } = await pipeline.metadata();
  const quality = searchStart(lossy, level as LossyLevel).start;
  const context = { level: level as LossyLevel, hasAlpha, quality };
  const output = await applyEncoder(pipeline.clone(), lossy, context).toBuffer();
  const flatten = lossy === 'jpeg' && hasAlpha;
  const reference = flatten ? pipeline.clone().flatten({ background: '#ffffff' }) : pipeline.clone();
  await scoreWholeOutput(await decodeRgb(reference), await decodeRgb(output));
  return true;
}
