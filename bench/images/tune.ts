/**
 * Tuning run: for a sample of corpus photos, the quality the per-image search picks for each format and
 * level (the median becomes the level's default in encoders.ts), and JPEG 4:2:0 vs 4:4:4 bytes at the
 * target. Usage: node bench/images/tune.ts [files…] (default: the mate-backgrounds nature photos).
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { searchFormatQuality, type TuningReport } from '../../src/processors/image/lossy-tuning.ts';
import { searchQuality } from '../../src/processors/image/quality/search.ts';
import { type LossyLevel, QUALITY_TARGETS } from '../../src/processors/image/quality/targets.ts';
import { decodeRgb, mosaic, SEARCH_MOSAIC, sharpFromRgb } from '../../src/processors/shared/metric/pixels.ts';
import { measureSsimulacra2 } from '../../src/processors/shared/metric/score.ts';

const corpus = resolve(import.meta.dirname, '../../.corpus/bench/usr/share/backgrounds/mate/nature');
const files =
  process.argv.length > 2 ? process.argv.slice(2) : readdirSync(corpus).map((f) => join(corpus, f));
const levels: LossyLevel[] = ['medium', 'high', 'ultra'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const picked: Record<string, number[]> = {};
const chroma: Record<string, number[]> = {};
for (const file of files) {
  const pipeline = sharp(file).autoOrient().toColourspace('srgb');
  const line: string[] = [file.split('/').pop()!];
  for (const format of ['jpeg', 'webp', 'avif'] as const) {
    for (const level of levels) {
      const report: TuningReport = { trials: 0 };
      const q = await searchFormatQuality(pipeline, format, level, false, report);
      const key = `${format}/${level}`;
      picked[key] = [...(picked[key] ?? []), q];
      line.push(`${format}/${level}=${q}(${report.trials})`);
    }
  }
  // JPEG chroma subsampling: bytes of the proxy at the target with each setting.
  const proxy = mosaic(await decodeRgb(pipeline), SEARCH_MOSAIC);
  for (const level of levels) {
    const sizes: number[] = [];
    for (const sub of ['4:2:0', '4:4:4'] as const) {
      let bytes = 0;
      await searchQuality({
        min: 30,
        max: 98,
        target: QUALITY_TARGETS[level],
        maxTrials: 8,
        trial: async (quality) => {
          const out = await sharpFromRgb(proxy)
            .jpeg({ mozjpeg: true, quality, chromaSubsampling: sub })
            .toBuffer();
          const s = await measureSsimulacra2(proxy, await decodeRgb(out));
          if (s >= QUALITY_TARGETS[level]) bytes = out.length;
          return s;
        },
      });
      sizes.push(bytes);
    }
    chroma[level] = [...(chroma[level] ?? []), sizes[1]! / sizes[0]!];
  }
  console.log(line.join(' '));
}
for (const [key, qs] of Object.entries(picked)) console.log(`median ${key}: ${median(qs)} (${qs.join(',')})`);
for (const [level, r] of Object.entries(chroma))
  console.log(`jpeg 4:4:4 / 4:2:0 bytes at ${level} target: median ${median(r).toFixed(3)}`);
