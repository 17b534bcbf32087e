/**
 * Per-image quality search (as Kraken and imgmin do): the lowest encoder quality whose output still meets
 * the level's perceptual target, found by binary search on a proxy of the image. The search is capped by a
 * number of trials, never by time: the same input gives the same output however busy the machine is (a
 * wall-clock cap made a WebP 22 % larger under load). When the trials run out it keeps the lowest quality
 * that passed, or the safe top of the range when none passed yet. The job's deadline still ends a search
 * (through `signal`), failing the job instead of changing its output.
 *
 * Each next quality is aimed where the score should cross the target: interpolated between the closest
 * passing and failing trials, or from a typical slope when only one side is known. Scores are nearly
 * linear in quality near the target, so the crossing is usually found in 2–3 trials and confirmed by its
 * neighbour, where bisection over a 50-step range needed all 6 (and then often stopped short of the
 * lowest passing quality). Guesses stay inside the bracket, so a poor one still narrows it, and the trial
 * cap bounds the worst case as before.
 */

export interface QualitySearchOptions {
  /** Encoder quality range searched (integers, inclusive). */
  min: number;
  max: number;
  /** First quality tried (the corpus-tuned default for the level); the midpoint when absent. */
  start?: number;
  /** Score to reach (higher is better). */
  target: number;
  /**
   * Typical score change per quality step near the target, for the guess after the first trial. Measured
   * on the corpus (bench/images/profile.ts runs): ~0.6 for mozjpeg, WebP and AVIF quality at 70–85.
   */
  slope?: number;
  maxTrials: number;
  /**
   * Early exit: a passing trial within this many points of the target ends the search without confirming
   * its lower neighbour (issue 25). Worth it where a trial is a whole output (a small image is its own
   * proxy, so each trial costs as much as the floor of a verified output); at half the slope per step, the
   * neighbour would score below the target unless the curve is locally half as steep as the corpus's.
   */
  exitWithin?: number;
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
  let worst: { quality: number; score: number } | undefined;
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
      if (options.exitWithin !== undefined && score - options.target <= options.exitWithin) break;
    } else {
      if (worst === undefined || quality > worst.quality) worst = { quality, score };
      lo = quality + 1;
    }
    if (lo > hi) break;
    next = clamp(guess(best, worst, options), lo, hi);
  }
  // A job stopped during the last trial stops here too, not with that trial's answer.
  options.signal?.throwIfAborted();
  if (best !== undefined) return { quality: best.quality, score: best.score, trials, stoppedBy };
  const top = trials.find((t) => t.quality === options.max);
  return { quality: options.max, score: top?.score, trials, stoppedBy };
}

/** The quality where the score should reach the target, from the closest trials on either side. */
function guess(
  pass: { quality: number; score: number } | undefined,
  fail: { quality: number; score: number } | undefined,
  options: QualitySearchOptions,
): number {
  const slope = options.slope ?? 0.6;
  if (pass !== undefined && fail !== undefined && pass.score > fail.score) {
    const perStep = (pass.score - fail.score) / (pass.quality - fail.quality);
    return Math.ceil(fail.quality + (options.target - fail.score) / perStep);
  }
  if (pass !== undefined) return Math.ceil(pass.quality - (pass.score - options.target) / slope);
  if (fail !== undefined) return Math.ceil(fail.quality + (options.target - fail.score) / slope);
  return Math.floor((options.min + options.max) / 2);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)));
}
