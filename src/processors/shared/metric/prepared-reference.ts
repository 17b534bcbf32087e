/**
 * A reference prepared once for several SSIMULACRA 2 scores against it (issue 25): a quality search scores
 * 3–6 trial encodes against the same reference, and every score recomputed the reference's side (its
 * XYB planes, and per channel the blurred μ1 and σ11 at every scale), about 40 % of a score's work. A
 * prepared reference keeps them (~48 bytes per pixel over the scales, per background) until `release()`.
 *
 * Its scores are the one-shot scores bit for bit (`measureSsimulacra2(...alignChannels(reference,
 * distorted))`, test/processors/image/prepared-reference.test.ts): the same float operations in the same
 * order, only not repeated. Two implementations: the addon's handle (ssimulacra2-native.ts) and, when the
 * addon is not loaded, this TypeScript port of it (`prepareReferenceTs`).
 *
 * Backgrounds: an image with alpha is scored on a dark and a light one (ssimulacra2.ts backgroundsOf). An
 * opaque reference's linear planes do not depend on the background (an opaque pixel blended on any
 * background is the pixel: (v/255)·1 + 0·bg, exactly), so one preparation serves every background, also
 * against a distorted image with alpha; a reference with alpha is prepared on both.
 */
import { type ReferenceMoments, referenceMoments, type ScaleScores, scoreScaleWith } from './scale-scores.ts';
import {
  backgroundsOf,
  combine,
  downsample,
  NUM_SCALES,
  type Planes,
  type RgbImage,
  toLinear,
  toPositiveXyb,
} from './ssimulacra2.ts';

export interface PreparedReference {
  readonly width: number;
  readonly height: number;
  readonly channels: 3 | 4;
  /** SSIMULACRA 2 of `distorted` (same size; with or without alpha) against the prepared reference. */
  score(distorted: RgbImage): Promise<number>;
  /** Bytes its prepared planes hold (0 once released). */
  bytes(): number;
  /** Frees the planes (at once, or when the scores in flight end); later scores throw. Idempotent. */
  release(): void;
}

/** The backgrounds a reference is prepared on: both for alpha, one (any) for an opaque image. */
export function preparedBackgrounds(channels: 3 | 4): number[] {
  return channels === 4 ? [0.1, 0.9] : [0.5];
}

/** Which prepared background serves `background` (an opaque reference's one serves all). */
export function servingBackground(channels: 3 | 4, background: number): number {
  return channels === 4 ? background : 0.5;
}

/** The scales' planes a score against the reference reads, on one background. */
interface PreparedScales {
  scales: { xyb: Planes; moments: ReferenceMoments }[];
}

/** ssimulacra2.ts scoreOnBackground's reference side, kept: the same scales, the same operations. */
function prepareScales(reference: RgbImage, background: number): PreparedScales {
  let lin = toLinear(reference, background);
  const scales: PreparedScales['scales'] = [];
  for (let scale = 0; scale < NUM_SCALES; scale++) {
    if (lin.width < 8 || lin.height < 8) break;
    if (scale > 0) lin = downsample(lin);
    const xyb = toPositiveXyb(lin);
    scales.push({ xyb, moments: referenceMoments(xyb) });
  }
  return { scales };
}

/** scoreOnBackground's distorted side against prepared scales. */
function scoreAgainstScales(prepared: PreparedScales, distorted: RgbImage, background: number): number {
  let lin = toLinear(distorted, background);
  const scores: ScaleScores[] = [];
  prepared.scales.forEach(({ xyb, moments }, scale) => {
    if (scale > 0) lin = downsample(lin);
    scores.push(scoreScaleWith(xyb, moments, toPositiveXyb(lin)));
  });
  return combine(scores);
}

function scalesBytes(prepared: PreparedScales): number {
  let floats = 0;
  for (const { xyb } of prepared.scales) floats += 9 * xyb.width * xyb.height;
  return floats * 4;
}

/**
 * The TypeScript port of a prepared reference (the fallback when the addon is not loaded, and the test
 * oracle): computes on the calling thread, as `ssimulacra2()` does.
 */
export function prepareReferenceTs(reference: RgbImage): PreparedReference {
  const { width, height, channels } = reference;
  let prepared: Map<number, PreparedScales> | undefined = new Map(
    preparedBackgrounds(channels).map((bg) => [bg, prepareScales(reference, bg)]),
  );
  const shape = { width, height, channels, data: new Uint8Array(0) };
  return {
    width,
    height,
    channels,
    async score(distorted) {
      const held = prepared;
      if (held === undefined) throw new Error('ssimulacra2: the prepared reference was released');
      const scores = backgroundsOf(shape, distorted).map((bg) =>
        scoreAgainstScales(held.get(servingBackground(channels, bg))!, distorted, bg),
      );
      return Math.min(...scores);
    },
    bytes: () => [...(prepared?.values() ?? [])].reduce((sum, p) => sum + scalesBytes(p), 0),
    release() {
      prepared = undefined;
    },
  };
}
