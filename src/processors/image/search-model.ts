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
 * bench/images/fit-start.ts and shipped as data (start-model.json). Where that model has no entry, or no
 * features are given, the corpus median above. Like the median, it only chooses the first trial: the search
 * still brackets the answer from there and the output is still checked whole.
 */
interface StartModel {
  intercept: number;
  weights: Record<string, number>;
  /** The training samples' range of each term: an image outside it is predicted as at its edge. */
  ranges: Record<string, number[]>;
}
const predicted = predictor.model as Partial<Record<LossyFormat, Partial<Record<LossyLevel, StartModel>>>>;

export function searchStart(format: LossyFormat, level: LossyLevel, features?: StartFeatures): SearchStart {
  const { start, slope } = fitted.model[format][level];
  const model = predicted[format]?.[level];
  if (features === undefined || model === undefined) return { start, slope };
  const terms = startTerms(features);
  let value = model.intercept;
  for (const [name, weight] of Object.entries(model.weights)) {
    const [low = -Infinity, high = Infinity] = model.ranges[name] ?? [];
    value += weight * Math.min(high, Math.max(low, terms[name] ?? 0));
  }
  const { min, max } = LOSSY_RANGES[format][level];
  return { start: Math.min(max, Math.max(min, Math.round(value))), slope };
}
