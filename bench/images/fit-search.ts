/**
 * Fits the search model of src/processors/image/search-model.json: per format and level, where the
 * per-image quality search starts and the score change per quality step it assumes after its first
 * trial. For each corpus image it runs the proxy search (as lossy-tuning.ts does, from the encoder's
 * tuned default, at most 10 trials so the answer is found), then takes, over the images, the median
 * answer as the start and the median slope between the first trial and the answer (the move the
 * second trial has to make). Trials are written to bench/results/search-fit-<time>.jsonl.
 *
 * Usage: node bench/images/fit-search.ts [--from trials.jsonl] [--evaluate] [files…]
 * --from fits from a previous run's trials; --evaluate also replays the production search (6 trials) with
 * the old fixed start and slope and with the fitted model, and prints trials per search before → after.
 * (default files: the mate-backgrounds nature photos, the forensics photos, skimage astronaut, coffee
 * and chelsea).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import sharp from 'sharp';
import { applyEncoder, LOSSY_RANGES, type LossyFormat } from '../../src/processors/image/encoders.ts';
import { searchQuality } from '../../src/processors/image/quality/search.ts';
import {
  type LossyLevel,
  PROXY_MARGIN,
  QUALITY_TARGETS,
  SEARCH_LIMITS,
} from '../../src/processors/image/quality/targets.ts';
import {
  decodeRgb,
  mosaicTiles,
  SEARCH_MOSAIC,
  sharpFromRgb,
  stitch,
  type TileGrid,
} from '../../src/processors/shared/metric/pixels.ts';
import { measureSsimulacra2 } from '../../src/processors/shared/metric/score.ts';

interface Row {
  file: string;
  format: LossyFormat;
  level: LossyLevel;
  quality: number;
  trials: { quality: number; score: number }[];
}

const root = resolve(import.meta.dirname, '../..');
const FORMATS: LossyFormat[] = ['jpeg', 'webp', 'avif'];
const LEVELS: LossyLevel[] = ['medium', 'high', 'ultra'];

function defaultFiles(): string[] {
  const share = join(root, '.corpus/bench/usr/share');
  const nature = join(share, 'backgrounds/mate/nature');
  const forensics = join(share, 'forensics-samples/original-files');
  const skimage = join(root, '.corpus/bench/usr/lib/python3/dist-packages/skimage/data');
  return [
    ...readdirSync(nature)
      .sort()
      .map((f) => join(nature, f)),
    ...['pic1', 'pic2'].flatMap((dir) =>
      readdirSync(join(forensics, dir))
        .filter((f) => /^IMG.*\.jpe?g$/i.test(f))
        .sort()
        .map((f) => join(forensics, dir, f)),
    ),
    ...['astronaut.png', 'coffee.png', 'chelsea.png'].map((f) => join(skimage, f)),
  ];
}

type Scores = Map<string, number>;
const key = (file: string, format: string, level: string, quality: number) =>
  `${basename(file)}/${format}/${level}/${quality}`;

const proxies = new Map<string, TileGrid>();

/** The search proxy of `file` (as lossy-tuning.ts cuts it), decoded once per run. */
async function proxyOf(file: string): Promise<TileGrid> {
  let proxy = proxies.get(file);
  if (proxy === undefined) {
    const reference = await decodeRgb(sharp(file).autoOrient().toColourspace('srgb').removeAlpha());
    proxy = mosaicTiles(reference, SEARCH_MOSAIC) ?? { tiles: [reference], cols: 1, rows: 1 };
    proxies.set(file, proxy);
  }
  return proxy;
}

interface Settings {
  start: number;
  slope?: number;
  maxTrials: number;
}

/**
 * The proxy search of one format and level on one image from `settings`; trial scores come from `cache`
 * when known (trials are deterministic) and are added to it otherwise.
 */
async function searchOne(
  file: string,
  format: LossyFormat,
  level: LossyLevel,
  settings: Settings,
  cache: Scores,
): Promise<Row> {
  const range = LOSSY_RANGES[format][level];
  const result = await searchQuality({
    min: range.min,
    max: range.max,
    ...settings,
    target: QUALITY_TARGETS[level] + PROXY_MARGIN,
    trial: async (quality) => {
      const known = cache.get(key(file, format, level, quality));
      if (known !== undefined) return known;
      const proxy = await proxyOf(file);
      const encoded = await Promise.all(
        proxy.tiles.map((tile) =>
          applyEncoder(sharpFromRgb(tile), format, { level, hasAlpha: false, quality }).toBuffer(),
        ),
      );
      const decoded = await Promise.all(encoded.map((buffer) => decodeRgb(buffer)));
      const score = await measureSsimulacra2(stitch(proxy), stitch({ ...proxy, tiles: decoded }));
      cache.set(key(file, format, level, quality), score);
      return score;
    },
  });
  return { file: basename(file), format, level, quality: result.quality, trials: result.trials };
}

async function searchImage(
  file: string,
  settings: (format: LossyFormat, level: LossyLevel) => Settings,
  cache: Scores,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const format of FORMATS)
    for (const level of LEVELS)
      rows.push(await searchOne(file, format, level, settings(format, level), cache));
  proxies.delete(file);
  return rows;
}

/**
 * The medians are a first guess: per format and level, the start (median answer or the encoder's
 * default) and slope (0.3–1.0) are then chosen by replaying the production search (SEARCH_LIMITS) on
 * every image and keeping the fewest trials on average (ties: the lower mean answer, smaller files).
 */
async function refine(model: Model, files: string[], cache: Scores): Promise<Model> {
  const refined: Model = {};
  for (const format of FORMATS) {
    refined[format] = {};
    for (const level of LEVELS) {
      const fitted = model[format]![level]!;
      const starts = [...new Set([fitted.start, LOSSY_RANGES[format][level].quality])];
      const slopes = [fitted.slope, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
      let best: { start: number; slope: number; trials: number; quality: number } | undefined;
      for (const start of starts)
        for (const slope of slopes) {
          let trials = 0;
          let quality = 0;
          for (const file of files) {
            const row = await searchOne(file, format, level, { start, slope, ...SEARCH_LIMITS }, cache);
            trials += row.trials.length / files.length;
            quality += row.quality / files.length;
          }
          const better =
            best === undefined ||
            trials < best.trials - 1e-9 ||
            (Math.abs(trials - best.trials) < 1e-9 && quality < best.quality - 1e-9);
          if (better) best = { start, slope, trials, quality };
        }
      refined[format][level] = { start: best!.start, slope: best!.slope, images: files.length };
      console.log(
        `${format}/${level}: start ${best!.start}, slope ${best!.slope}, ${best!.trials.toFixed(2)} trials`,
      );
    }
  }
  return refined;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Median answer and median positive slope from the first trial to the answer, per format and level. */
type Model = Record<string, Record<string, { start: number; slope: number; images: number }>>;

function fit(rows: Row[]): Model {
  const model: Model = {};
  for (const format of FORMATS) {
    model[format] = {};
    for (const level of LEVELS) {
      const mine = rows.filter((r) => r.format === format && r.level === level);
      const slopes = mine.flatMap((r) => {
        const first = r.trials[0]!;
        const answer = r.trials.find((t) => t.quality === r.quality);
        if (answer === undefined || answer.quality === first.quality) return [];
        const slope = (answer.score - first.score) / (answer.quality - first.quality);
        // A plateau (mozjpeg's score is flat over some quality spans) says nothing about the move.
        return slope > 0.05 ? [slope] : [];
      });
      model[format][level] = {
        start: Math.round(median(mine.map((r) => r.quality))),
        slope: Math.round(median(slopes) * 100) / 100,
        images: mine.length,
      };
    }
  }
  return model;
}

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const from = option('--from');
const files = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
const fileList = files.length > 0 ? files : defaultFiles();
const cache: Scores = new Map();
let rows: Row[] = [];
if (from !== undefined) {
  rows = readFileSync(from, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
  for (const r of rows)
    for (const t of r.trials) cache.set(key(r.file, r.format, r.level, t.quality), t.score);
} else {
  const out = join(
    root,
    'bench/results',
    `search-fit-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`,
  );
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  for (const file of fileList) {
    const wide = (format: LossyFormat, level: LossyLevel) => ({
      start: LOSSY_RANGES[format][level].quality,
      maxTrials: 10,
    });
    const found = await searchImage(file, wide, cache);
    rows.push(...found);
    writeFileSync(out, found.map((r) => `${JSON.stringify(r)}\n`).join(''), { flag: 'a' });
    console.log(
      found.map((r) => `${r.file} ${r.format}/${r.level} q${r.quality} (${r.trials.length})`).join('\n'),
    );
  }
}
const scoresPath = join(root, 'bench/results/search-scores.json');
try {
  for (const [k, v] of Object.entries(JSON.parse(readFileSync(scoresPath, 'utf8')) as Record<string, number>))
    cache.set(k, v);
} catch {
  // no scores kept from an earlier run
}
const saveScores = () => writeFileSync(scoresPath, JSON.stringify(Object.fromEntries(cache)));
process.on('exit', saveScores);
const shipped = join(root, 'src/processors/image/search-model.json');
const model = args.includes('--evaluate')
  ? (JSON.parse(readFileSync(shipped, 'utf8')) as { model: Model }).model
  : await refine(fit(rows), fileList, cache);
if (!args.includes('--evaluate')) {
  writeFileSync(shipped, `${JSON.stringify({ fittedOn: rows.length / 9, model }, null, 2)}\n`);
  console.log(JSON.stringify(model));
} else {
  // --evaluate: the production search (SEARCH_LIMITS) from the encoder's default with the old fixed slope,
  // against the shipped model: trials per search and how the answers compare.
  const before = (format: LossyFormat, level: LossyLevel) => ({
    start: LOSSY_RANGES[format][level].quality,
    slope: 0.6,
    maxTrials: SEARCH_LIMITS.maxTrials,
  });
  const after = (format: LossyFormat, level: LossyLevel) => ({
    ...model[format]![level]!,
    maxTrials: SEARCH_LIMITS.maxTrials,
  });
  const summary = new Map<string, { before: number[]; after: number[]; lower: number; higher: number }>();
  for (const file of fileList) {
    const a = await searchImage(file, before, cache);
    const b = await searchImage(file, after, cache);
    a.forEach((r, i) => {
      const s = summary.get(`${r.format}/${r.level}`) ?? { before: [], after: [], lower: 0, higher: 0 };
      s.before.push(r.trials.length);
      s.after.push(b[i]!.trials.length);
      if (b[i]!.quality < r.quality) s.lower++;
      if (b[i]!.quality > r.quality) s.higher++;
      summary.set(`${r.format}/${r.level}`, s);
    });
  }
  const mean = (xs: number[]) => (xs.reduce((x, y) => x + y, 0) / xs.length).toFixed(2);
  for (const [k, s] of summary)
    console.log(
      `${k}: trials ${mean(s.before)} -> ${mean(s.after)} (n ${s.before.length}); answer lower on ${s.lower}, higher on ${s.higher}`,
    );
}
