/**
 * The prepared references of one format's quality search (issue 25): every proxy trial and every output
 * check scores against the same reference, and each score recomputed the reference's side of the metric
 * (shared/metric/prepared-reference.ts). Here the proxy is prepared at its first trial and the whole image
 * at its first output check, each once; every later score computes only the output's side. The scores are
 * the one-shot scores bit for bit, so the search takes the same decisions and writes the same bytes.
 *
 * Memory: a prepared reference holds PREPARED_BYTES_PER_PIXEL per background (two for an image with
 * alpha) until the search ends; the proxy's is 16 MB (0.33 MP, opaque). The whole image is prepared only
 * when it is scored in one call (quality/whole-score.ts) and its planes, with a score's and an encode's
 * working set beside them, stay within what the service lets one encode hold in process
 * (`PRESSO_IMAGE_ENCODE_IN_PROCESS`, 320 MB by default: up to ~4.4 MP opaque, ~2.6 MP with alpha);
 * otherwise its checks are scored one-shot as before. `release()` frees both, also after an error or a
 * cancelled job (the caller's `finally`).
 */
import { type PreparedReference, preparedBackgrounds } from '../../shared/metric/prepared-reference.ts';
import { prepareReference } from '../../shared/metric/score.ts';
import type { RgbImage } from '../../shared/metric/ssimulacra2.ts';
import { SCORE_BYTES_PER_PIXEL } from '../limits.ts';
import { scoreWholeOutput, WHOLE_SCORE_PIXELS } from './whole-score.ts';

/**
 * Bytes a prepared reference holds per pixel and background: per scale 9 float planes (XYB, μ1, σ11),
 * 36 bytes × ~4/3 over the scales; the addon reports 48.2–49.9 (its block rounded up to 2 MB: Canon
 * 1280×960 49.3, the 576×576 proxy 50.6).
 */
export const PREPARED_BYTES_PER_PIXEL = 50;
/**
 * Bytes per pixel an output check adds beside a prepared whole reference: the output decoded (up to 4)
 * and the reference decoded again when not held (4), and the output's planes during its score (12 × 4/3
 * = 16). Also at least any lossy encode's working set (encoder-memory.ts: 6.1–19.7), which comes between
 * checks while the reference stays prepared.
 */
const CHECK_BYTES_PER_PIXEL = 24;
/** The output's planes of one score against a prepared reference: 12 bytes × 4/3. */
const AGAINST_BYTES_PER_PIXEL = 16;

/** Used when the caller has no in-process limit (tests, benchmarks): the service's default. */
const DEFAULT_IN_PROCESS_BYTES = 320_000_000;

/**
 * Bytes the prepared references of a search add to a job's memory share (limits.ts jobShare), beyond the
 * one-shot check's scratch it counts already (SCORE_BYTES_PER_PIXEL of the whole image): the proxy's,
 * and the whole image's with its score's planes in place of the one-shot scratch when it is prepared.
 */
export function preparedBytes(
  pixels: number,
  proxyPixels: number,
  channels: 3 | 4,
  inProcessBytes: number,
): number {
  const backgrounds = preparedBackgrounds(channels).length;
  const proxy = proxyPixels * PREPARED_BYTES_PER_PIXEL * backgrounds;
  if (!wholeFits(pixels, channels, inProcessBytes)) return proxy;
  return (
    proxy +
    pixels * (PREPARED_BYTES_PER_PIXEL * backgrounds + AGAINST_BYTES_PER_PIXEL - SCORE_BYTES_PER_PIXEL)
  );
}

/** The whole image of `pixels` is prepared for its checks (see above). */
export function wholeFits(pixels: number, channels: 3 | 4, inProcessBytes: number): boolean {
  const backgrounds = preparedBackgrounds(channels).length;
  const perPixel = PREPARED_BYTES_PER_PIXEL * backgrounds + CHECK_BYTES_PER_PIXEL;
  return pixels <= WHOLE_SCORE_PIXELS && pixels * perPixel <= inProcessBytes;
}

export class SearchReferences {
  private proxy: Promise<PreparedReference> | undefined;
  private whole: Promise<PreparedReference> | undefined;
  private released = false;
  /** The whole image does not fit prepared: its checks are one-shot. */
  private declined = false;

  /** What one in-process encode may hold (the child encoder's threshold). */
  private readonly inProcessBytes: number;

  constructor(inProcessBytes = DEFAULT_IN_PROCESS_BYTES) {
    this.inProcessBytes = inProcessBytes;
  }

  /** A proxy trial's score: `distorted` against the proxy (`reference()` gives it, read once). */
  async scoreProxy(reference: () => RgbImage, distorted: RgbImage): Promise<number> {
    this.proxy ??= this.prepare(reference());
    return (await this.proxy).score(distorted);
  }

  /**
   * An output check's score: `scoreWholeOutput(reference(), output)`, against the prepared whole image
   * when it fits (see above), else one-shot as before. `sameAsProxy`: the proxy is the whole image, already
   * prepared. Checks come one at a time (quality/checked-search.ts).
   */
  async scoreWhole(
    reference: () => Promise<RgbImage>,
    output: RgbImage,
    sameAsProxy: boolean,
  ): Promise<number> {
    if (sameAsProxy && this.proxy !== undefined) return (await this.proxy).score(output);
    if (this.whole === undefined && !this.declined) {
      const image = await reference();
      if (!wholeFits(image.width * image.height, image.channels, this.inProcessBytes)) {
        this.declined = true;
        return scoreWholeOutput(image, output);
      }
      this.whole = this.prepare(image);
    }
    if (this.whole === undefined) return scoreWholeOutput(await reference(), output);
    return (await this.whole).score(output);
  }

  /** Frees both references (once their preparation ends, if one is under way). Idempotent. */
  release(): void {
    this.released = true;
    for (const prepared of [this.proxy, this.whole])
      prepared?.then(
        (p) => p.release(),
        () => {},
      );
  }

  private prepare(reference: RgbImage): Promise<PreparedReference> {
    if (this.released) return Promise.reject(new Error('the search has ended'));
    return prepareReference(reference);
  }
}
