/**
 * The blur of the reference SSIMULACRA 2, reproduced to its float32 rounding: libjxl's `FastGaussian`, the
 * recursive Gaussian of Charalampidis, "Recursive Implementation of the Gaussian Filter Using Truncated
 * Cosine Functions" (IEEE TSP 2016), σ = 1.5, zero outside the image. Coefficients are derived here from the
 * paper's equations (numbers in parentheses).
 *
 * Why not a plain Gaussian: the filter is three resonators (k = 1, 3, 5) fed with in[n−N−1] + in[n+N−1];
 * its impulse response is a 9-tap kernel (centre 0.2646, no ±5 taps) that is not the sampled Gaussian, and
 * the sampled radius-5 Gaussian read +0.2 above the reference on the opaque fixture pairs. Why the float32
 * rounding: the SSIM' map divides variance differences by C2 = 0.0009, so on flat areas the rounding noise
 * of blur(x²) − blur(x)² is part of the score. Exact (double) arithmetic read +1.4…+2.6 above the reference
 * on the semi-transparent fixture pairs; float32 arithmetic reads within ±0.3 on every pair
 * (test/processors/image/metric-reference.test.ts). So both passes run the recursion one step per pixel
 * with every value rounded to float32 (Math.fround), the column pass's feedback rounded once as the
 * reference's fused multiply-add rounds it. This is the native addon's arithmetic, operation for
 * operation (native/ssimulacra2/src/recursive_gaussian.cc), so the two give the same bits.
 */

const f = Math.fround;
const SIGMA = 1.5;
/** N of (57): round(3.2795σ + 0.2546) = 5 for σ = 1.5. */
const N = Math.round(3.2795 * SIGMA + 0.2546);

/** Solves the 3×3 system `a · x = b` (Cramer's rule; the system is small and well conditioned). */
function solve3(a: number[][], b: number[]): number[] {
  const det = (m: number[][]) =>
    m[0]![0]! * (m[1]![1]! * m[2]![2]! - m[1]![2]! * m[2]![1]!) -
    m[0]![1]! * (m[1]![0]! * m[2]![2]! - m[1]![2]! * m[2]![0]!) +
    m[0]![2]! * (m[1]![0]! * m[2]![1]! - m[1]![1]! * m[2]![0]!);
  const d = det(a);
  return [0, 1, 2].map((col) => det(a.map((row, i) => row.map((v, j) => (j === col ? b[i]! : v)))) / d);
}

/** Per resonator k: n2 and d1 of (33), in double. */
function resonators(): { n2: number[]; d1: number[] } {
  const omega = [1, 3, 5].map((k) => (k * Math.PI) / (2 * N)); // Table I
  const p = omega.map((w, i) => (i === 1 ? -1 : 1) / Math.tan(0.5 * w)); // (37)
  const r = omega.map((w, i) => ((i === 1 ? -1 : 1) * p[i]! * p[i]!) / Math.sin(w)); // (44)
  const rho = omega.map((w) => Math.exp(-0.5 * SIGMA * SIGMA * w * w) / N); // (50)
  const d13 = p[0]! * r[1]! - r[0]! * p[1]!; // (52)
  const d35 = p[1]! * r[2]! - r[1]! * p[2]!;
  const d51 = p[2]! * r[0]! - r[2]! * p[0]!;
  const zeta15 = d35 / d13;
  const zeta35 = d51 / d13;
  const beta = solve3(
    [p, r, [zeta15, zeta35, 1]], // (56)
    [1, N * N - SIGMA * SIGMA, zeta15 * rho[0]! + zeta35 * rho[1]! + rho[2]!], // (55)
  ); // (53)
  return {
    n2: beta.map((b, i) => -b * Math.cos(omega[i]! * (N + 1))),
    d1: omega.map((w) => -2 * Math.cos(w)),
  };
}

const { n2, d1 } = resonators();
/** Column pass: y = n2·in − d1·y[−1] − y[−2], float32 constants. */
const N2 = Float64Array.from(n2, f);
const D1 = Float64Array.from(d1, f);
/**
 * The resonators' constants for the native blur (native/ssimulacra2/src/recursive_gaussian.h): N2 then D1,
 * float32 values. Computed here because V8's Math.cos/sin/tan/exp and C's differ in the last bit.
 */
export const BLUR_CONSTANTS = Float64Array.from([...N2, ...D1]);

/**
 * Row pass: per row, y = n2·sum + (−d1·y[n−1] − y[n−2]) per resonator, every operation rounded to float32,
 * output y1 + (y3 + y5). The addon runs four rows at once, one per vector lane, each lane this recursion.
 */
function rowPass(src: Float32Array, dst: Float32Array, width: number, height: number): void {
  const [n1, n3, n5] = N2 as unknown as [number, number, number];
  const [d11, d13, d15] = D1 as unknown as [number, number, number];
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let p1 = 0;
    let p3 = 0;
    let p5 = 0;
    let q1 = 0;
    let q3 = 0;
    let q5 = 0;
    for (let n = -N + 1; n < width; n++) {
      const left = n - N - 1;
      const right = n + N - 1;
      const sum = f((left >= 0 ? src[row + left]! : 0) + (right < width ? src[row + right]! : 0));
      const y1 = f(f(n1 * sum) + f(f(-d11 * p1) - q1));
      const y3 = f(f(n3 * sum) + f(f(-d13 * p3) - q3));
      const y5 = f(f(n5 * sum) + f(f(-d15 * p5) - q5));
      q1 = p1;
      q3 = p3;
      q5 = p5;
      p1 = y1;
      p3 = y3;
      p5 = y5;
      if (n >= 0) dst[row + n] = y1 + f(y3 + y5);
    }
  }
}

/**
 * Column pass: the same recursion down each column, with −d1·y[n−1] − y[n−2] rounded once as the
 * reference's fused multiply-add rounds it (the double product of two float32 values is exact; the
 * addon computes it the same way), which matters on flat areas (native/ssimulacra2/src/recursive_gaussian.cc
 * says how much). A missing top row is skipped, a missing bottom row reads 0.
 */
function columnPass(src: Float32Array, dst: Float32Array, width: number, height: number): void {
  const [n1, n3, n5] = N2 as unknown as [number, number, number];
  const [d11, d13, d15] = D1 as unknown as [number, number, number];
  // Previous and second-previous outputs of each resonator, per column.
  const p1 = new Float32Array(width);
  const p3 = new Float32Array(width);
  const p5 = new Float32Array(width);
  const q1 = new Float32Array(width);
  const q3 = new Float32Array(width);
  const q5 = new Float32Array(width);
  for (let n = -N + 1; n < height; n++) {
    const top = (n - N - 1) * width;
    const bottom = (n + N - 1) * width;
    const hasTop = n - N - 1 >= 0;
    const hasBottom = n + N - 1 < height;
    const out = n * width;
    for (let x = 0; x < width; x++) {
      const b = hasBottom ? src[bottom + x]! : 0;
      const sum = hasTop ? f(src[top + x]! + b) : b;
      const y1 = f(f(n1 * sum) + f(-d11 * p1[x]! - q1[x]!));
      const y3 = f(f(n3 * sum) + f(-d13 * p3[x]! - q3[x]!));
      const y5 = f(f(n5 * sum) + f(-d15 * p5[x]! - q5[x]!));
      q1[x] = p1[x]!;
      q3[x] = p3[x]!;
      q5[x] = p5[x]!;
      p1[x] = y1;
      p3[x] = y3;
      p5[x] = y5;
      if (n >= 0) dst[out + x] = y1 + f(y3 + y5);
    }
  }
}

/** Blurs one width × height plane into `dst`; `tmp` is scratch of the same size. */
export function blurPlane(
  src: Float32Array,
  dst: Float32Array,
  tmp: Float32Array,
  width: number,
  height: number,
) {
  rowPass(src, tmp, width, height);
  columnPass(tmp, dst, width, height);
}
