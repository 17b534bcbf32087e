/**
 * The prepared reference of one format's quality search (issue 25): every proxy trial scores against the
 * same proxy, and each score recomputed the reference's side of the metric (shared/metric/
 * prepared-reference.ts). Here the proxy is prepared at its first trial and every later trial computes
 * only the output's side: ~35 % fewer instructions per trial. The scores are the one-shot scores bit for
 * bit, so the search takes the same decisions and writes the same bytes.
 *
 * The whole image is not prepared for the output checks (unless it is the proxy, small images): a search
 * checks its output once in most requests (8 of the 9 of docs/benchmarks.md's table), and preparing costs
 * more than it saves until the third check (the phone photo's first check: 294 + 346 CPU ms against 497
 * one-shot; first touches of ~50 bytes per pixel of fresh memory), besides holding ~50 bytes per pixel
 * between checks (207 MB at 4.3 MP) where a one-shot check holds 32 only while it scores.
 *
 * Memory: PREPARED_BYTES_PER_PIXEL per background (two for an image with alpha) of the proxy (0.33 MP at
 * most above 0.5 MP, the image itself below), until the search ends; `release()` frees it, also after an
 * error or a stopped job (the caller's `finally`).
 */
import { type PreparedReference, preparedBackgrounds } from '../../shared/metric/prepared-reference.ts';
import { prepareReference } from '../../shared/metric/score.ts';
import type { RgbImage } from '../../shared/metric/ssimulacra2.ts';
import { scoreWholeOutput } from './whole-score.ts';

/**
 * Bytes a prepared reference holds per pixel and background: per scale 9 float planes (XYB, μ1, σ11),
 * 36 bytes × ~4/3 over the scales; the addon reports 48.2–49.9 (its block rounded up to 2 MB: Canon
 * 1280×960 49.3, the 576×576 proxy 50.6).
 */
export const PREPARED_BYTES_PER_PIXEL = 50;
/** Bytes the prepared proxy of a search adds to a job's memory share (limits.ts jobShare). */
export function preparedBytes(proxyPixels: number, channels: 3 | 4): number {
  return proxyPixels * PREPARED_BYTES_PER_PIXEL * preparedBackgrounds(channels).length;
}

export class SearchReferences {
  private proxy: Promise<PreparedReference> | undefined;
  private released = false;

  /** A proxy trial's score: `distorted` against the proxy (`reference()` gives it, read once). */
  async scoreProxy(reference: () => RgbImage, distorted: RgbImage): Promise<number> {
    this.proxy ??= this.prepare(reference());
    return (await this.proxy).score(distorted);
  }

  /**
   * An output check's score: `scoreWholeOutput(reference(), output)`, one-shot, or against the prepared
   * proxy when it is the whole image (`sameAsProxy`).
   */
  async scoreWhole(
    reference: () => Promise<RgbImage>,
    output: RgbImage,
    sameAsProxy: boolean,
  ): Promise<number> {
    if (sameAsProxy && this.proxy !== undefined) return (await this.proxy).score(output);
    return scoreWholeOutput(await reference(), output);
  }

  /** Frees the prepared proxy (once its preparation ends, if it is under way). Idempotent. */
  release(): void {
    this.released = true;
    this.proxy?.then(
      (p) => p.release(),
      () => {},
    );
  }

  private prepare(reference: RgbImage): Promise<PreparedReference> {
    if (this.released) return Promise.reject(new Error('the search has ended'));
    return prepareReference(reference);
  }
}
