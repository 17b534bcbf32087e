/**
 * Fits the per-image start predictor of src/processors/image/start-model.json (issue 25) on the TRAINING
 * corpus only (bench/images/training-sample.ts, unpacked by `scripts/corpus.sh .corpus/train
 * scripts/corpus/train-images.txt`); the benchmark's images are never read here.
 *
 * Samples: each training image at full size, downscaled to 1280 and 640 px on its long side, and a 512×512
 * crop of its centre at full resolution (the last two are small enough to be their own proxy, as a small
 * upload is). Per sample, format and level: the proxy features (start-features.ts) and the answer of the
 * production proxy search (the lowest passing quality at the aim tunedLossy uses: target + guarantee margin,
 * + the proxy margin for a mosaic proxy), found with up to 12 trials. Trials are deterministic, so their
 * scores are kept in bench/results/start-scores-<levels>.json and a second run encodes nothing it has already.
 * The samples go to bench/results/start-samples-<levels>.json (fit-start-model.ts refits from several).
 *
 * Model choice (per format and level): the constant (the shipped fitted start, for comparison) and least
 * squares on every subset of one or two features, plus `exact` as an offset; the subset with the lowest
 * mean absolute error of the rounded start in leave-one-image-out cross-validation (all samples of one
 * training image held out together) wins, and is refitted on all samples.
 *
 * Usage: node bench/images/fit-start.ts [--levels medium,high] [--quick]
 * (one command refits the shipped model; runs split by level, e.g. two processes with --levels high and
 * --levels medium, are merged by `node bench/images/fit-start-model.ts bench/results/start-samples-*.json`)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import sharp from 'sharp';
import { applyEncoder, LOSSY_RANGES, type LossyFormat } from '../../src/processors/image/encoders.ts';
import { searchQuality } from '../../src/processors/image/quality/search.ts';
import {
  guaranteeMargin,
  type LossyLevel,
  PROXY_MARGIN,
  QUALITY_TARGETS,
} from '../../src/processors/image/quality/targets.ts';
import { searchStart } from '../../src/processors/image/search-model.ts';
import {
  FEATURE_NAMES,
  proxyFeatures,
  type StartFeatures,
} from '../../src/processors/image/start-features.ts';
import {
  decodeRgb,
  mosaicTiles,
  SEARCH_MOSAIC,
  sharpFromRgb,
  stitch,
  type TileGrid,
} from '../../src/processors/shared/metric/pixels.ts';
import { measureSsimulacra2 } from '../../src/processors/shared/metric/score.ts';
import type { RgbImage } from '../../src/processors/shared/metric/ssimulacra2.ts';
import { fitModel, type Sample } from './fit-start-model.ts';
import { trainingSample } from './training-sample.ts';

const root = resolve(import.meta.dirname, '../..');
const FORMATS: LossyFormat[] = ['jpeg', 'webp', 'avif'];
const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
// `ultra` is not fitted yet (its searches keep the corpus median): --levels medium,high,ultra fits it too.
const levels = (option('--levels') ?? 'medium,high').split(',') as LossyLevel[];
const files = trainingSample(join(root, '.corpus/train'), args.includes('--quick'));
if (files.length === 0)
  throw new Error('no training corpus: run scripts/corpus.sh .corpus/train scripts/corpus/train-images.txt');

const part = levels.join('-');
const scoresPath = join(root, `bench/results/start-scores-${part}.json`);
mkdirSync(join(root, 'bench/results'), { recursive: true });
let scores: Record<string, number> = {};
try {
  scores = JSON.parse(readFileSync(scoresPath, 'utf8')) as Record<string, number>;
} catch {
  // no scores kept from an earlier run
}
const save = () => writeFileSync(scoresPath, JSON.stringify(scores));

/** The variants of one decoded training image (see the header). */
async function variants(full: RgbImage): Promise<{ name: string; image: RgbImage }[]> {
  const resized = async (side: number) =>
    decodeRgb(sharpFromRgb(full).resize(side, side, { fit: 'inside' }).png({ compressionLevel: 0 }));
  const crop = Math.min(512, full.width, full.height);
  const left = Math.floor((full.width - crop) / 2);
  const top = Math.floor((full.height - crop) / 2);
  const centre = await decodeRgb(
    sharpFromRgb(full).extract({ left, top, width: crop, height: crop }).png({ compressionLevel: 0 }),
  );
  return [
    { name: 'full', image: full },
    { name: '1280', image: await resized(1280) },
    { name: '640', image: await resized(640) },
    { name: 'crop512', image: centre },
  ];
}

async function trial(
  proxy: TileGrid,
  format: LossyFormat,
  level: LossyLevel,
  quality: number,
): Promise<number> {
  const encoded = await Promise.all(
    proxy.tiles.map((tile) =>
      applyEncoder(sharpFromRgb(tile), format, { level, hasAlpha: false, quality }).toBuffer(),
    ),
  );
  const decoded = await Promise.all(encoded.map((buffer) => decodeRgb(buffer)));
  return measureSsimulacra2(stitch(proxy), stitch({ ...proxy, tiles: decoded }));
}

const samples: Sample[] = [];
let featureMs = 0;
let featureRuns = 0;
for (const file of files) {
  const full = await decodeRgb(sharp(file, { limitInputPixels: false }).autoOrient().removeAlpha());
  for (const { name, image } of await variants(full)) {
    const proxy = mosaicTiles(image, SEARCH_MOSAIC) ?? { tiles: [image], cols: 1, rows: 1 };
    const started = performance.now();
    const features: StartFeatures = proxyFeatures(proxy);
    featureMs += performance.now() - started;
    featureRuns++;
    for (const format of FORMATS)
      for (const level of levels) {
        const range = LOSSY_RANGES[format][level];
        const aim =
          QUALITY_TARGETS[level] + guaranteeMargin(format) + (features.exact === 1 ? 0 : PROXY_MARGIN);
        const { start, slope } = searchStart(format, level);
        const result = await searchQuality({
          min: range.min,
          max: range.max,
          start,
          slope,
          target: aim,
          maxTrials: 12,
          trial: async (quality) => {
            const key = `${basename(file)}/${name}/${format}/${level}/${quality}`;
            scores[key] ??= await trial(proxy, format, level, quality);
            return scores[key]!;
          },
        });
        samples.push({
          image: basename(file),
          variant: name,
          format,
          level,
          features,
          answer: result.quality,
        });
        console.log(
          `${basename(file)} ${name} ${format}/${level}: q${result.quality} (${result.trials.length} trials) ${FEATURE_NAMES.map((f) => `${f} ${features[f].toFixed(3)}`).join(' ')}`,
        );
      }
    save();
  }
}
writeFileSync(join(root, `bench/results/start-samples-${part}.json`), JSON.stringify(samples));
console.log(`features: ${(featureMs / featureRuns).toFixed(1)} ms per proxy (mean of ${featureRuns})`);
const model = fitModel(samples, FORMATS, levels);
const shipped = join(root, 'src/processors/image/start-model.json');
writeFileSync(shipped, `${JSON.stringify(model, null, 2)}\n`);
console.log(`wrote ${shipped}`);
