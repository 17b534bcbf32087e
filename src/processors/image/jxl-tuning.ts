/**
 * Lossy JPEG XL: the Butteraugli distance is searched per image, like the JPEG/WebP/AVIF quality, for the
 * largest distance whose proxy still meets the level's SSIMULACRA 2 target. On the 12 mate-backgrounds
 * photos the distance that just meets each target spreads widely (high: 1.5–3.6, docs/benchmarks.md), so
 * one fixed distance would either miss the target or waste bytes. As for the other formats, the real
 * output is then checked (quality/checked-search.ts).
 */
import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sharp } from 'sharp';
import { decodeRgb, mosaic, SEARCH_MOSAIC, sharpFromRgb } from '../shared/metric/pixels.ts';
import { measureSsimulacra2, SCORE_MOSAIC, scoreAgainstMosaic } from '../shared/metric/score.ts';
import type { RgbImage } from '../shared/metric/ssimulacra2.ts';
import type { ToolRun } from '../shared/run-tool.ts';
import { decodeJxl, encodeJxl } from './codecs/jxl.ts';
import { checkedSearch } from './quality/checked-search.ts';
import { searchQuality } from './quality/search.ts';
import { type LossyLevel, QUALITY_TARGETS, SEARCH_LIMITS } from './quality/targets.ts';

/** Distances searched: 0.1 to 8.0 in steps of 0.1 (cjxl: 1.0 ≈ visually lossless). */
const STEPS = 79;
/** Corpus medians of the distance that meets each target, the search's first trial. */
export const JXL_DISTANCE: Record<LossyLevel, number> = { medium: 1.4, high: 2.7, ultra: 6.0 };

// searchQuality looks for the lowest passing "quality": quality q stands for distance 0.1 + (79 - q) / 10.
const distanceOf = (quality: number) => Math.round(1 + STEPS - quality) / 10;
const qualityOf = (distance: number) => Math.round(STEPS + 1 - distance * 10);

export interface JxlJob {
  /** The pixels to encode, as a PNG file (what cjxl reads). */
  png: string;
  output: string;
  workDir: string;
  run: ToolRun;
}

/** Writes `job.output` at the largest distance that meets the level's target; returns that distance. */
export async function encodeTunedJxl(pipeline: Sharp, level: LossyLevel, job: JxlJob): Promise<number> {
  const { proxy, wide } = await referenceMosaics(pipeline);
  const proxyPng = join(job.workDir, 'jxl-proxy.png');
  await sharpFromRgb(proxy).png({ compressionLevel: 1 }).toFile(proxyPng);
  const decodedPng = join(job.workDir, 'jxl-decoded.png');
  const scoreOf = async (jxl: string, against: RgbImage, whole: boolean) => {
    await decodeJxl(jxl, decodedPng, job.run);
    const output = await decodeRgb(decodedPng);
    return whole ? scoreAgainstMosaic(against, output) : measureSsimulacra2(against, output);
  };
  const result = await checkedSearch({
    target: QUALITY_TARGETS[level],
    search: (aim) =>
      searchQuality({
        min: 0,
        max: STEPS,
        start: qualityOf(JXL_DISTANCE[level]),
        target: aim,
        ...SEARCH_LIMITS,
        trial: async (quality) => {
          const trial = join(job.workDir, 'jxl-proxy.jxl');
          await encodeJxl(proxyPng, trial, distanceOf(quality), job.run);
          return scoreOf(trial, proxy, false);
        },
      }),
    produce: async (quality, round) => {
      const candidate = join(job.workDir, `jxl-candidate-${round}.jxl`);
      await encodeJxl(job.png, candidate, distanceOf(quality), job.run);
      return {
        output: candidate,
        size: (await stat(candidate)).size,
        score: await scoreOf(candidate, wide, true),
      };
    },
  });
  await rename(result.output, job.output);
  return distanceOf(result.quality);
}

/** Only the mosaics are kept while cjxl runs, not the whole decoded image. */
async function referenceMosaics(pipeline: Sharp): Promise<{ proxy: RgbImage; wide: RgbImage }> {
  const decoded = await decodeRgb(pipeline.clone());
  return { proxy: mosaic(decoded, SEARCH_MOSAIC), wide: mosaic(decoded, SCORE_MOSAIC) };
}
