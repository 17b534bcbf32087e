/**
 * One scale of SSIMULACRA 2 in the TypeScript port (ssimulacra2.ts): the five blurred moments per XYB
 * channel, the SSIM′ and edge maps and their norms, in float32 operation for operation as the addon
 * computes them (native/ssimulacra2/src/metric.cc ScoreScale). The reference's own moments (μ1, σ11) are
 * a separate step, so a prepared reference (prepared-reference.ts) keeps them and scores several
 * distorted images against them: each blur depends only on its own input, so the numbers are the same
 * bits either way.
 */
import { blurPlane } from './recursive-gaussian.ts';

const f = Math.fround;
const C2 = f(0.0009);

/** Planar float image: 3 planes of width × height (here, below ssimulacra2.ts, so neither imports the other). */
export interface Planes {
  width: number;
  height: number;
  p: [Float32Array, Float32Array, Float32Array];
}

export interface ScaleScores {
  ssim: number[]; // [c*2 + n]
  edge: number[]; // [c*4 + n] ringing, [c*4 + 2 + n] blurring
}

/** The reference's blurred planes of one scale, per XYB channel: μ1 = blur(a), σ11 = blur(a·a). */
export interface ReferenceMoments {
  mu1: [Float32Array, Float32Array, Float32Array];
  s11: [Float32Array, Float32Array, Float32Array];
}

/**
 * A map's 1- and 4-norm sums in double, one pair per lane (x mod 4) as the addon keeps them, added in its
 * order at the end.
 */
class LaneSums {
  private readonly sum1 = [0, 0, 0, 0];
  private readonly sum4 = [0, 0, 0, 0];

  add(x: number, v: number): void {
    const lane = x & 3;
    this.sum1[lane]! += v;
    const v2 = v * v;
    this.sum4[lane]! += v2 * v2;
  }

  /** [mean, 4-norm] over pixels (inv = 1 / pixels). */
  norms(inv: number): [number, number] {
    const [a, b, c, d] = this.sum1 as [number, number, number, number];
    const [a4, b4, c4, d4] = this.sum4 as [number, number, number, number];
    return [(a + b + (c + d)) * inv, Math.sqrt(Math.sqrt((a4 + b4 + (c4 + d4)) * inv))];
  }
}

/** μ1 and σ11 of each channel of the reference's XYB planes (one scale). */
export function referenceMoments(img1: Planes): ReferenceMoments {
  const { width, height } = img1;
  const n = width * height;
  const tmp = new Float32Array(n);
  const mul = new Float32Array(n);
  const channel = (c: number) => {
    const a = img1.p[c]!;
    const mu1 = new Float32Array(n);
    const s11 = new Float32Array(n);
    for (let i = 0; i < n; i++) mul[i] = a[i]! * a[i]!;
    blurPlane(mul, s11, tmp, width, height);
    blurPlane(a, mu1, tmp, width, height);
    return { mu1, s11 };
  };
  const [x, y, b] = [channel(0), channel(1), channel(2)];
  return { mu1: [x.mu1, y.mu1, b.mu1], s11: [x.s11, y.s11, b.s11] };
}

/** One scale's statistics of img2 against img1 (same size), whose own moments are `moments`. */
export function scoreScaleWith(img1: Planes, moments: ReferenceMoments, img2: Planes): ScaleScores {
  const { width, height } = img1;
  const n = width * height;
  const tmp = new Float32Array(n);
  const mu2 = new Float32Array(n);
  const s22 = new Float32Array(n);
  const s12 = new Float32Array(n);
  const mul = new Float32Array(n);
  const ssim: number[] = [];
  const edge: number[] = [];
  const inv = 1 / n;
  for (let c = 0; c < 3; c++) {
    const a = img1.p[c]!;
    const b = img2.p[c]!;
    const mu1 = moments.mu1[c]!;
    const s11 = moments.s11[c]!;
    for (let i = 0; i < n; i++) mul[i] = b[i]! * b[i]!;
    blurPlane(mul, s22, tmp, width, height);
    for (let i = 0; i < n; i++) mul[i] = a[i]! * b[i]!;
    blurPlane(mul, s12, tmp, width, height);
    blurPlane(b, mu2, tmp, width, height);
    const ssimSums = new LaneSums();
    const ringing = new LaneSums();
    const blurring = new LaneSums();
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const m1 = mu1[i]!;
        const m2 = mu2[i]!;
        const diff = f(m1 - m2);
        const numM = f(1 - f(diff * diff));
        const numS = f(2 * f(s12[i]! - f(m1 * m2)) + C2);
        const denS = f(f(f(s11[i]! - f(m1 * m1)) + f(s22[i]! - f(m2 * m2))) + C2);
        const d = 1 - f(f(numM * numS) / denS);
        ssimSums.add(x, d > 0 ? d : 0);
        const e = (1 + Math.abs(f(b[i]! - m2))) / (1 + Math.abs(f(a[i]! - m1))) - 1;
        ringing.add(x, e > 0 ? e : 0);
        blurring.add(x, e < 0 ? -e : 0);
      }
    }
    ssim.push(...ssimSums.norms(inv));
    edge.push(...ringing.norms(inv), ...blurring.norms(inv));
  }
  return { ssim, edge };
}

/** One scale's statistics of img2 against img1: the reference's moments, then the rest. */
export function scoreScale(img1: Planes, img2: Planes): ScaleScores {
  return scoreScaleWith(img1, referenceMoments(img1), img2);
}
