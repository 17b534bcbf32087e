/**
 * Where the per-image quality search starts and how far it moves after its first trial, per format and
 * level: a small model fitted on the corpus photos by bench/images/fit-search.ts and shipped as data
 * (search-model.json). `start` is the median answer of the search over the corpus; `slope` the median
 * score change per quality step between the first trial and the answer, which the search uses to aim its
 * second trial at the predicted crossing (quality/search.ts). One fixed 0.6 before fitted the JPEG/WebP
 * medium and high curves but not AVIF's (~0.3 per step) or WebP ultra's, whose searches then crept up
 * on the answer and often ran out of trials short of it. The model only chooses which trials run: the
 * search still ends on the lowest passing quality it finds, confirmed by its failing neighbour, and the
 * output is still checked on the whole image.
 */

import { LOSSY_RANGES, type LossyFormat } from './encoders.ts';
import type { LossyLevel } from './quality/targets.ts';
import fitted from './search-model.json' with { type: 'json' };
import { type StartFeatures, startTerms } from './start-features.ts';
import predictor from './start-model.json' with { type: 'json' };

export interface SearchStart {
  /** First quality tried. */
  start: number;
  /** Expected score change per quality step near the target, for the guess after the first trial. */
  slope: number;
}

/**
 * Per-image start (issue 25): a linear function of a few statistics of the search's proxy
 * (start-features.ts), fitted per format and level on the training corpus only by
 * bench/images/fit-start.ts and shipped as data (start-model.json). It only chooses the first trial: the
 * search still brackets the answer from there and the output is still checked whole.
 *
 * Off (`enabled: false` in start-model.json): on the benchmark it saved ~3 % of the trials at `high` and none
 * at `medium`, and on images whose proxy score is not monotonic in quality another first trial is another
 * path to another answer: adwaita-d as AVIF `high` went from q75 (152 kB) to q92 (1.37 MB) through the
 * checked search's fallback (docs/benchmarks.md, *Per-image start predictor*). The median start stays until a
 * predictor both saves trials and keeps every output's bytes.
 */
interface StartModel {
  intercept: number;
  weights: Record<string, number>;
  /** The training samples' range of each term: an image outside it is predicted as at its edge. */
  ranges: Record<string, number[]>;
}
const predicted = predictor.model as Partial<Record<LossyFormat, Partial<Record<LossyLevel, StartModel>>>>;

/**
 * The first quality and slope of a search. `features` is only read when the predictor is on (computing them
 * costs ~10 CPU-ms a proxy).
 */
export function searchStart(
  format: LossyFormat,
  level: LossyLevel,
  features?: () => StartFeatures,
): SearchStart {
  const median = fitted.model[format][level];
  const start =
    predictor.enabled && features !== undefined ? predictedStart(format, level, features()) : undefined;
  return { start: start ?? median.start, slope: median.slope };
}

/** The predictor's start for an image with `features`; undefined where no model is fitted (`ultra`). */
export function predictedStart(
  format: LossyFormat,
  level: LossyLevel,
  features: StartFeatures,
): number | undefined {
  const model = predicted[format]?.[level];
  if (model === undefined) return undefined;
  const terms = startTerms(features);
  let value = model.intercept;
  for (const [name, weight] of Object.entries(model.weights)) {
    const [low = -Infinity, high = Infinity] = model.ranges[name] ?? [];
    value += weight * Math.min(high, Math.max(low, terms[name] ?? 0));
  }
  const { min, max } = LOSSY_RANGES[format][level];
  return Math.min(max, Math.max(min, Math.round(value)));
}
