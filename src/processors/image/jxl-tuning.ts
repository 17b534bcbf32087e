/**
 * The Butteraugli distance for a lossy JPEG XL output: searched per image, like the JPEG/WebP/AVIF
 * quality, for the largest distance whose proxy still meets the level's SSIMULACRA 2 target. On the 12
 * mate-backgrounds photos the distance that just meets each target spreads widely (high: 1.5–3.6,
 * docs/benchmarks.md), so one fixed distance would either miss the target or waste bytes.
 */
import { join } from 'node:path';
import type { Sharp } from 'sharp';
import { decodeJxl, encodeJxl } from './codecs/jxl.ts';
import { decodeRgb, mosaic, SEARCH_MOSAIC, sharpFromRgb } from './quality/pixels.ts';
import { searchQuality } from './quality/search.ts';
import { ssimulacra2 } from './quality/ssimulacra2.ts';
import { type LossyLevel, PROXY_MARGIN, QUALITY_TARGETS, SEARCH_LIMITS } from './quality/targets.ts';
import type { ToolRun } from './run-tool.ts';

/** Distances searched: 0.1 to 8.0 in steps of 0.1 (cjxl: 1.0 ≈ visually lossless). */
const STEPS = 79;
/** Corpus medians of the distance that meets each target, the search's first trial. */
export const JXL_DISTANCE: Record<LossyLevel, number> = { medium: 1.4, high: 2.7, ultra: 6.0 };

// searchQuality looks for the lowest passing "quality": quality q stands for distance 0.1 + (79 - q) / 10.
const distanceOf = (quality: number) => Math.round(1 + STEPS - quality) / 10;
const qualityOf = (distance: number) => Math.round(STEPS + 1 - distance * 10);

export async function searchJxlDistance(
  pipeline: Sharp,
  level: LossyLevel,
  workDir: string,
  run: ToolRun,
): Promise<number> {
  const proxy = mosaic(await decodeRgb(pipeline.clone()), SEARCH_MOSAIC);
  const source = join(workDir, 'jxl-proxy.png');
  const encoded = join(workDir, 'jxl-proxy.jxl');
  const decoded = join(workDir, 'jxl-proxy-out.png');
  await sharpFromRgb(proxy).png({ compressionLevel: 1 }).toFile(source);
  const result = await searchQuality({
    min: 0,
    max: STEPS,
    start: qualityOf(JXL_DISTANCE[level]),
    target: QUALITY_TARGETS[level] + PROXY_MARGIN,
    ...SEARCH_LIMITS,
    trial: async (quality) => {
      await encodeJxl(source, encoded, distanceOf(quality), run);
      await decodeJxl(encoded, decoded, run);
      return ssimulacra2(proxy, await decodeRgb(decoded));
    },
  });
  return distanceOf(result.quality);
}
