/**
 * The metric's cube root, the same bits as the native addon's (native/ssimulacra2/src/simd.h CubeRoot):
 * a 5-bit estimate from the float32 bits, two Newton steps in float32 (Math.fround after every
 * operation is float32 arithmetic: each operation's double result rounded once more is the correctly
 * rounded float32 one), a third in double, rounded to float32. 0 for x ≤ 0.
 */
const f = Math.fround;
const bits = new Int32Array(1);
const float = new Float32Array(bits.buffer);
const ONE_THIRD = f(1 / 3);
/** (127 − 127/3 − 0.0331)·2²³: the estimate's offset in the float32 bits. */
const ESTIMATE_OFFSET = 709958130;

/** Cube root of a float32 value `x`, as a float32 value. */
export function floatCubeRoot(x: number): number {
  if (!(x > 0)) return 0;
  float[0] = x;
  // cvtdq2ps (to nearest), a float32 multiply, cvttps2dq (towards zero), then the integer add.
  const third = f(f(bits[0]!) * ONE_THIRD);
  bits[0] = (Math.trunc(third) + ESTIMATE_OFFSET) | 0;
  let t = float[0]!;
  for (let i = 0; i < 2; i++) t = f(f(f(t + t) + f(x / f(t * t))) * ONE_THIRD);
  t = t - (t * t * t - x) / (3 * t * t);
  return f(t);
}
