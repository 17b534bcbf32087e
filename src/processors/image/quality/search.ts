/**
 * Per-image quality search (as Kraken and imgmin do): the lowest encoder quality whose output still meets
 * the level's perceptual target, found by binary search on a proxy of the image. The search is capped by a
 * number of trials, never by time: the same input gives the same output however busy the machine is (a
 * wall-clock cap made a WebP 22 % larger under load). When the trials run out it keeps the lowest quality
 * that passed, or the safe top of the range when none passed yet. The job's deadline still ends a search
 * (through `signal`), failing the job instead of changing its output.
 */

export interface QualitySearchOptions {
  /** Encoder quality range searched (integers, inclusive). */
  min: number;
  max: number;
  /** First quality tried (the corpus-tuned default for the level); the midpoint when absent. */
  start?: number;
  /** Score to reach (higher is better). */
  target: number;
  maxTrials: number;
  /** Encodes the proxy at `quality` and returns its score. */
  trial(quality: number): Promise<number>;
  /** Checked before every trial: a job past its deadline or cancelled stops searching at once. */
  signal?: AbortSignal;
}

export interface QualitySearchResult {
  quality: number;
  /** Score measured at `quality`; undefined when that quality was never tried (search cut short). */
  score: number | undefined;
  trials: { quality: number; score: number }[];
  stoppedBy: 'converged' | 'trials';
}

export async function searchQuality(options: QualitySearchOptions): Promise<QualitySearchResult> {
  const trials: { quality: number; score: number }[] = [];
  let lo = options.min;
  let hi = options.max;
  let best: { quality: number; score: number } | undefined;
  let next = clamp(options.start ?? Math.floor((lo + hi) / 2), lo, hi);
  let stoppedBy: QualitySearchResult['stoppedBy'] = 'converged';
  while (lo <= hi) {
    if (trials.length >= options.maxTrials) {
      stoppedBy = 'trials';
      break;
    }
    options.signal?.throwIfAborted();
    const quality = next;
    const score = await options.trial(quality);
    trials.push({ quality, score });
    if (score >= options.target) {
      if (best === undefined || quality < best.quality) best = { quality, score };
      hi = quality - 1;
    } else {
      lo = quality + 1;
    }
    next = Math.floor((lo + hi) / 2);
  }
  if (best !== undefined) return { quality: best.quality, score: best.score, trials, stoppedBy };
  const top = trials.find((t) => t.quality === options.max);
  return { quality: options.max, score: top?.score, trials, stoppedBy };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)));
}
