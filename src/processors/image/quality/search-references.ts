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
 * Memory: ~48 bytes per pixel per background (`preparedReferenceBytes`) (two for an image with alpha) of the proxy (0.33 MP at
 * most above 0.5 MP, the image itself below), until the search ends; `release()` frees it, also after an
 * error or a stopped job (the caller's `finally`).
 */
import { type PreparedReference, preparedBackgrounds } from '../../shared/metric/prepared-reference.ts';
import { prepareReference } from '../../shared/metric/score.ts';
import type { RgbImage } from '../../shared/metric/ssimulacra2.ts';
import { scoreWholeOutput } from './whole-score.ts';

/**
 * Bytes a prepared reference of width × height holds per background, as the addon allocates them
 * (native/ssimulacra2/src/reference.cc): per scale 9 float planes (X, Y, B and their μ1 and σ11) of rows
 * padded to 4 floats, in one block rounded up to 2 MB. ~48 bytes per pixel (2400×1800: 48.1; 1280×960:
 * 49.5; the 576×576 proxy 50.6, the 640×480 image 54.6 with the rounding).
 */
export function preparedReferenceBytes(width: number, height: number): number {
  if (width < 8 || height < 8) return 0;
  let floats = 0;
  // The metric's scales: each while the previous one is at least 8 × 8, at most 6.
  for (let w = width, h = height, scales = 1; ; scales++) {
    floats += 9 * (Math.ceil(w / 4) * 4) * h;
    if (scales === 6 || w < 8 || h < 8) break;
    [w, h] = [Math.ceil(w / 2), Math.ceil(h / 2)];
  }
  const huge = 2 * 1024 * 1024;
  return Math.ceil((floats * 4) / huge) * huge;
}

/** Bytes the prepared proxy (width × height) of a search adds to a job's memory share (limits.ts jobShare). */
export function preparedBytes(width: number, height: number, channels: 3 | 4): number {
  return preparedReferenceBytes(width, height) * preparedBackgrounds(channels).length;
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
