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

import type { LossyFormat } from './encoders.ts';
import type { LossyLevel } from './quality/targets.ts';
import fitted from './search-model.json' with { type: 'json' };

export interface SearchStart {
  /** First quality tried. */
  start: number;
  /** Expected score change per quality step near the target, for the guess after the first trial. */
  slope: number;
}

export function searchStart(format: LossyFormat, level: LossyLevel): SearchStart {
  const { start, slope } = fitted.model[format][level];
  return { start, slope };
}
