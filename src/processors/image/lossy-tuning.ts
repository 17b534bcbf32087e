/**
 * The per-image quality search of the lossy formats (JPEG, WebP, AVIF): a search on a proxy of the image
 * (quality/search.ts), then a check of the real output (quality/checked-search.ts). The decoded reference
 * can be shared by several formats (`format: auto`), and a cheap one-trial probe per format lets `auto`
 * search only the formats that can win (auto-candidates.ts).
 */
import type { Sharp } from 'sharp';
import {
  decodeRgb,
  mosaicLayout,
  mosaicTiles,
  SEARCH_MOSAIC,
  sharpFromRgb,
  stitch,
  type TileGrid,
} from '../shared/metric/pixels.ts';
import { releasePixels, watchPixels } from '../shared/metric/release-pixels.ts';
import { measureSsimulacra2, SCORE_MOSAIC } from '../shared/metric/score.ts';
import type { RgbImage } from '../shared/metric/ssimulacra2.ts';
import type { ChildEncoder } from './encode-process.ts';
import { bufferedOutput, type EncodedOutput } from './encoded-output.ts';
import { applyEncoder, type EncodeContext, LOSSY_RANGES, type LossyFormat } from './encoders.ts';
import { paletteOptions } from './png-tuning.ts';
import { checkedSearch } from './quality/checked-search.ts';
import { searchQuality } from './quality/search.ts';
import { SearchReferences } from './quality/search-references.ts';
import {
  guaranteeMargin,
  type LossyLevel,
  PROXY_MARGIN,
  QUALITY_TARGETS,
  SEARCH_LIMITS,
} from './quality/targets.ts';
import { referencePixels } from './quality/whole-score.ts';
import { searchStart } from './search-model.ts';
import { proxyFeatures } from './start-features.ts';

/** What the search did, for the benchmark and tests. */
export interface TuningReport {
  quality?: number;
  trials: number;
  proxyScore?: number;
  /** Score of the output itself (whole image), where it was measured. */
  outputScore?: number;
  fallback?: 'near-lossless' | 'lossless';
}

/**
 * The proxy search alone (no output check): the lowest quality whose proxy meets the level's target plus
 * the proxy margin. For bench/images/tune.ts, which picks the tuned starting qualities.
 */
export async function searchFormatQuality(
  pipeline: Sharp,
  format: LossyFormat,
  level: LossyLevel,
  hasAlpha: boolean,
  report: TuningReport = { trials: 0 },
): Promise<number> {
  const proxy = proxyTiles(await referencePixels(pipeline, format === 'jpeg' && hasAlpha));
  const references = new SearchReferences();
  const aim = QUALITY_TARGETS[level] + PROXY_MARGIN;
  const result = await searchOnProxy(proxy, format, level, aim, undefined, new Map(), references).finally(
    () => references.release(),
  );
  report.quality = result.quality;
  report.trials += result.trials.length;
  report.proxyScore = result.score;
  return result.quality;
}

/**
 * What the proxy trials measured, by quality: a second search round (quality/checked-search.ts) asks for
 * many of the same qualities again, and a proxy that is the whole image has already encoded and scored
 * what the output check would. Trials are deterministic, so a remembered score is the score.
 */
type TrialMemo = Map<number, { score: number; bytes: number; encoded: Buffer | undefined }>;

/**
 * One proxy trial: the tiles encoded at `quality`, decoded and scored (remembered in `memo`); a search
 * scores against its prepared proxy (quality/search-references.ts), the same number as one-shot.
 */
async function proxyTrial(
  proxy: TileGrid,
  format: LossyFormat,
  level: LossyLevel,
  quality: number,
  memo: TrialMemo,
  references?: SearchReferences,
): Promise<{ score: number; bytes: number }> {
  const known = memo.get(quality);
  if (known !== undefined) return known;
  const encoded = await Promise.all(
    proxy.tiles.map((tile) =>
      applyEncoder(sharpFromRgb(tile), format, { level, hasAlpha: tile.channels === 4, quality }).toBuffer(),
    ),
  );
  const decoded = await Promise.all(encoded.map((buffer) => decodeRgb(buffer)));
  const distorted = stitch({ ...proxy, tiles: decoded });
  const score = await (references === undefined
    ? measureSsimulacra2(stitch(proxy), distorted)
    : references.scoreProxy(() => stitch(proxy), distorted));
  const bytes = encoded.reduce((sum, buffer) => sum + buffer.length, 0);
  memo.set(quality, { score, bytes, encoded: proxy.tiles.length === 1 ? encoded[0] : undefined });
  return { score, bytes };
}

function searchOnProxy(
  proxy: TileGrid,
  format: LossyFormat,
  level: LossyLevel,
  aim: number,
  signal: AbortSignal | undefined,
  memo: TrialMemo,
  references: SearchReferences,
) {
  const range = LOSSY_RANGES[format][level];
  // Start and slope fitted on the corpus (search-model.ts; a start predicted from the proxy's statistics
  // when that predictor is on): fewer trials to the same kind of answer.
  const { start, slope } = searchStart(format, level, () => proxyFeatures(proxy));
  // A proxy that is the whole image: each trial is a full output, so a pass within half a step ends it.
  const exitWithin = proxy.tiles.length === 1 ? slope / 2 : undefined;
  return searchQuality({
    exitWithin,
    signal,
    min: range.min,
    max: range.max,
    start,
    slope,
    target: aim,
    ...SEARCH_LIMITS,
    trial: async (quality) => (await proxyTrial(proxy, format, level, quality, memo, references)).score,
  });
}

/**
 * The decoded reference of one job, decoded once and shared by the candidates of `format: auto` (each
 * candidate decoded and mosaicked the input again before), with each format's trials remembered so the
 * probe's trial is not repeated by the search.
 */
export interface LossyReference {
  /** Flattened on white (JPEG of an alpha input): only JPEG may use such a reference. */
  flattened: boolean;
  proxy: TileGrid;
  /**
   * The decoded reference, kept when it is small (up to the old 3.5 MP scoring mosaic's size); a larger one
   * is decoded again for each output check rather than held beside the encoder's copy.
   */
  whole: RgbImage | undefined;
  memos: Map<LossyFormat, TrialMemo>;
}

export async function lossyReference(pipeline: Sharp, flatten: boolean): Promise<LossyReference> {
  const { proxy, whole, dropped } = await decodeReferenceTiles(pipeline, flatten);
  // Only the tiles are kept: the decoded image is freed now, not while the output is encoded.
  await releasePixels(dropped);
  return { flattened: flatten, proxy, whole, memos: new Map() };
}

/** The tiles of the decoded reference; the decode itself is unreachable once this returns. */
async function decodeReferenceTiles(pipeline: Sharp, flatten: boolean) {
  const reference = await referencePixels(pipeline, flatten);
  return { ...referenceTiles(reference), dropped: watchPixels(reference.data) };
}

/**
 * One proxy trial at the format's fitted starting quality (search-model.ts): its score and proxy bytes, and the proxy
 * bytes it would take at `aim`, estimated from the corpus slope of bytes against score.
 */
export async function probeLossy(
  reference: LossyReference,
  format: LossyFormat,
  level: LossyLevel,
): Promise<{ score: number; bytes: number; bytesAtAim: number }> {
  const memo = memoOf(reference, format);
  const probe = await proxyTrial(
    reference.proxy,
    format,
    level,
    searchStart(format, level, () => proxyFeatures(reference.proxy)).start,
    memo,
  );
  const aim = QUALITY_TARGETS[level] + PROXY_MARGIN;
  return { ...probe, bytesAtAim: probe.bytes * Math.exp(BYTES_PER_POINT * (aim - probe.score)) };
}

/**
 * The palette PNG of the proxy (libimagequant at the level's palette quality), for `auto` to judge the
 * PNG candidate without running its search: its output is that palette when the palette serves, and a
 * larger near-lossless or lossless file when it does not.
 */
export async function probePalette(reference: LossyReference, level: LossyLevel): Promise<number> {
  // libimagequant at effort 1, not the output's 10: the probe only has to tell a palette twice the best
  // lossy estimate, and effort 10 was most of `auto`'s overhead on small photos (coffee 400×600: 1.17
  // CPU-s against 0.09 s; astronaut 1.41 against 0.12) for a palette 8–11 % smaller on those photos (and
  // no smaller on the Debian logo or green_palette).
  const options = { ...paletteOptions(level), effort: 1 };
  const png = await sharpFromRgb(stitch(reference.proxy)).png(options).toBuffer();
  return png.length;
}

/**
 * d ln(bytes) / d score near the targets, measured on the canon photo, astronaut, chelsea and coffee
 * proxies: 0.052–0.093 for mozjpeg, WebP and AVIF alike (steeper near the top of the scale).
 */
const BYTES_PER_POINT = 0.07;

/** libwebp's near-lossless level for the last resort (60: each pixel within a few levels; 100 is lossless). */
const WEBP_NEAR_LOSSLESS_LAST_RESORT = 60;

function memoOf(reference: LossyReference, format: LossyFormat): TrialMemo {
  const memo = reference.memos.get(format) ?? new Map();
  reference.memos.set(format, memo);
  return memo;
}

function referenceTiles(reference: RgbImage): { proxy: TileGrid; whole: RgbImage | undefined } {
  const small = mosaicLayout(reference.width, reference.height, SCORE_MOSAIC) === undefined;
  return { proxy: proxyTiles(reference), whole: small ? reference : undefined };
}

/** The search proxy as tiles (the whole image as one tile when it is small). */
function proxyTiles(reference: RgbImage): TileGrid {
  return mosaicTiles(reference, SEARCH_MOSAIC) ?? { tiles: [reference], cols: 1, rows: 1 };
}

/** The proxy search with a check of the real output (quality/checked-search.ts). */
export async function tunedLossy(
  pipeline: Sharp,
  format: LossyFormat,
  context: {
    level: LossyLevel;
    hasAlpha: boolean;
    signal?: AbortSignal;
    reference?: LossyReference;
    /** Encodes the whole image out of process when it is too large for this one (encode-process.ts). */
    child?: ChildEncoder;
  },
  report: TuningReport,
): Promise<EncodedOutput> {
  const { level, signal, child } = context;
  const flatten = format === 'jpeg' && context.hasAlpha;
  const shared = context.reference?.flattened === flatten ? context.reference : undefined;
  // Only the tiles are kept: the whole decoded reference would sit in memory beside the encoder's.
  const { proxy, whole } = shared ?? (await lossyReference(pipeline, flatten));
  const memo = shared === undefined ? new Map() : memoOf(shared, format);
  const target = QUALITY_TARGETS[level] + guaranteeMargin(format);
  // The guarantee: the whole output, as Debian's decoders decode it, scored by the reference metric
  // (quality/whole-score.ts, quality/targets.ts guaranteeMargin).
  // The proxy is prepared once for the search's trials, and released when it ends (`finally`).
  const references = new SearchReferences();
  const scoreOutput = async (buffer: Buffer) =>
    references.scoreWhole(
      async () => whole ?? (await referencePixels(pipeline, flatten)),
      await decodeRgb(buffer),
      proxy.tiles[0] === whole,
    );
  /**
   * One whole-image encode with `options`, scored on the whole image: in the child process when it would
   * hold more than the service may (encode-process.ts), here otherwise. `known` is the proxy trial of the
   * same settings when the proxy is the whole image: its bytes, if the same, have its score.
   */
  const wholeOutput = async (
    options: EncodeContext,
    known?: { score: number; encoded: Buffer | undefined },
  ): Promise<{ output: EncodedOutput; size: number; score: number }> => {
    if (child?.wants(options, true)) {
      const done = await child.encode(options, { flatten });
      return { output: done.output, size: done.size, score: done.score ?? Number.NEGATIVE_INFINITY };
    }
    const buffer = await applyEncoder(pipeline.clone(), format, options).toBuffer();
    const same = known?.encoded?.equals(buffer) === true;
    return {
      output: bufferedOutput(buffer),
      size: buffer.length,
      score: same && known !== undefined ? known.score : await scoreOutput(buffer),
    };
  };
  const result = await checkedSearch({
    target,
    signal,
    exactProxy: proxy.tiles[0] === whole,
    ceiling: LOSSY_RANGES[format][level].max,
    search: (aim) => searchOnProxy(proxy, format, level, aim, signal, memo, references),
    lastResort: async (quality: number) => {
      const base = { level, hasAlpha: context.hasAlpha, quality };
      if (format === 'jpeg') return wholeOutput({ ...base, fullChroma: true });
      if (format === 'avif') return wholeOutput(base); // already 4:4:4: nothing else to try
      // WebP: near-lossless keeps every pixel within a few levels, so it scores far above any target (the
      // stronger preprocessing first: it is the smaller file).
      const near = await wholeOutput({ ...base, nearLossless: WEBP_NEAR_LOSSLESS_LAST_RESORT });
      return near.score >= target ? near : wholeOutput({ ...base, nearLossless: 100 });
    },
    produce: async (quality) => {
      // The proxy was the whole image and encoded these very bytes: its score is the output's score
      // (scored whole, exactly as the check would). Saves a decode and a score.
      const trial = memo.get(quality);
      const known = proxy.tiles[0] === whole ? trial : undefined;
      return wholeOutput({ level, hasAlpha: context.hasAlpha, quality }, known);
    },
  }).finally(() => references.release());
  report.trials += result.trials;
  report.quality = result.quality;
  report.proxyScore = result.proxyScore;
  report.outputScore = result.score;
  return result.output;
}
