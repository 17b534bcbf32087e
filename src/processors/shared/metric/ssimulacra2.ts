/**
 * SSIMULACRA 2 (Jon Sneyers, Cloudinary; the version in libjxl `tools/ssimulacra2.cc`, April 2023 weights),
 * computed from decoded 8-bit sRGB pixels:
 *   sRGB → linear RGB → XYB (libjxl opsin absorbance, cube root), rescaled to ~0..1 with B−Y;
 *   6 scales (1:1 … 1:32), each downsampled 2×2 in linear RGB;
 *   per scale and XYB channel: an SSIM' map (SSIM without the luminance denominator) and an edge map
 *   (ringing: distorted has edges where the original is smooth; blurring: the reverse), Gaussian σ = 1.5;
 *   1-norm and 4-norm of each map → 108 numbers → the published weighted sum and polynomial.
 * 100 = identical, ~90 visually lossless at 1:1, ~80 very high, ~70 high, ~50 medium quality.
 *
 * Computed in float32 as the reference computes it (recursive-gaussian.ts says why the blur's rounding
 * matters): `f` (Math.fround) after every float operation, double where the reference uses double (the
 * map values and their sums). This is the native addon's arithmetic operation for operation, so the two
 * give the same number (test/processors/image/ssimulacra2-native.test.ts); the addon runs four pixels per
 * instruction and keeps its sums per lane (x mod 4), which `LaneSums` reproduces. Agreement with the
 * reference binary is tested on real pairs in test/processors/image/metric-reference.test.ts (numbers in
 * docs/benchmarks.md).
 */

import { floatCubeRoot } from './float-cube-root.ts';
import { type Planes, type ScaleScores, scoreScale } from './scale-scores.ts';

export type { Planes, ScaleScores } from './scale-scores.ts';

/**
 * Interleaved 8-bit RGB (3 channels) or RGBA (4 channels; blended on a dark and a light background, as the
 * reference tool does).
 */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

const f = Math.fround;
export const NUM_SCALES = 6;

const M00 = f(0.3);
const M02 = f(0.078);
const M01 = f(1 - 0.078 - 0.3);
const M10 = f(0.23);
const M12 = f(0.078);
const M11 = f(1 - 0.078 - 0.23);
const M20 = f(0.24342268924547819);
const M21 = f(0.20476744424496821);
const M22 = f(1 - 0.24342268924547819 - 0.20476744424496821);
const OPSIN_BIAS = f(0.0037930732552754493);
const NEG_CBRT_BIAS = -floatCubeRoot(OPSIN_BIAS);

// biome-ignore format: the published table, 108 weights in the reference order.
const WEIGHTS = [
  0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0, 0.0, 0.0004371155730107379, 0.0,
  1.1041726426657346, 0.00066284834129271, 0.00015231632783718752, 0.0, 0.0016406437456599754, 0.0,
  1.8422455520539298, 11.441172603757666, 0.0, 0.0007989109436015163, 0.000176816438078653, 0.0,
  1.8787594979546387, 10.94906990605142, 0.0, 0.0007289346991508072, 0.9677937080626833, 0.0,
  0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053, 0.0004550992113792063, 0.0, 0.0,
  0.0013648766163243398, 0.0, 0.0, 0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
  0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
  225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
  176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408, 0.0, 0.0,
  0.0, 34.77906344483772, 44.835625328877896, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0008680556573291698,
  0.0, 0.0, 0.0, 0.0, 0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112, 0.0, 0.0, 0.0, 0.0, 0.0,
  0.0004179171803251336, 0.0017290828234722833, 0.0, 0.0020827005846636437, 0.0, 0.0, 8.826982764996862,
  23.19243343998926, 0.0, 95.1080498811086, 0.9863978034400682, 0.9834382792465353, 0.0012286405048278493,
  171.2667255897307, 0.9807858872435379, 0.0, 0.0, 0.0, 0.0005130064588990679, 0.0, 0.00010854057858411537,
];

const SRGB_TO_LINEAR = (() => {
  const table = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    const v = i / 255;
    table[i] = v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }
  return table;
})();

function planes(width: number, height: number): Planes {
  const n = width * height;
  return { width, height, p: [new Float32Array(n), new Float32Array(n), new Float32Array(n)] };
}

/** One 8-bit sRGB value `v` at opacity `a` (0..1) on `background`, blended in sRGB, → linear. */
function blendToLinear(v: number, a: number, background: number): number {
  const s = (v / 255) * a + (1 - a) * background;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

/**
 * toLinear as a table for the native metric (ssimulacra2-native.ts), float32 as toLinear stores it: 256
 * entries by value for RGB, 256 × 256 by alpha then value for RGBA on `background`. V8's `**` differs from
 * C's pow in the last bit, so the native code looks these up instead of computing them.
 */
export function linearTable(channels: 3 | 4, background: number): Float32Array {
  if (channels === 3) return SRGB_TO_LINEAR;
  const table = new Float32Array(256 * 256);
  for (let alpha = 0; alpha < 256; alpha++) {
    const a = alpha / 255;
    for (let v = 0; v < 256; v++) table[alpha * 256 + v] = blendToLinear(v, a, background);
  }
  return table;
}

/** 8-bit sRGB (alpha blended on `background`, in sRGB as the reference does) → linear RGB planes. */
export function toLinear(image: RgbImage, background: number): Planes {
  const { width, height, channels, data } = image;
  const out = planes(width, height);
  const [r, g, b] = out.p;
  const n = width * height;
  for (let i = 0; i < n; i++) {
    const k = i * channels;
    if (channels === 4) {
      const a = data[k + 3]! / 255;
      r[i] = blendToLinear(data[k]!, a, background);
      g[i] = blendToLinear(data[k + 1]!, a, background);
      b[i] = blendToLinear(data[k + 2]!, a, background);
    } else {
      r[i] = SRGB_TO_LINEAR[data[k]!]!;
      g[i] = SRGB_TO_LINEAR[data[k + 1]!]!;
      b[i] = SRGB_TO_LINEAR[data[k + 2]!]!;
    }
  }
  return out;
}

export function downsample(input: Planes): Planes {
  const { width, height } = input;
  const ow = Math.ceil(width / 2);
  const oh = Math.ceil(height / 2);
  const out = planes(ow, oh);
  for (let c = 0; c < 3; c++) {
    const src = input.p[c]!;
    const dst = out.p[c]!;
    for (let oy = 0; oy < oh; oy++) {
      const y0 = oy * 2;
      const y1 = Math.min(y0 + 1, height - 1);
      for (let ox = 0; ox < ow; ox++) {
        const x0 = ox * 2;
        const x1 = Math.min(x0 + 1, width - 1);
        const top = f(src[y0 * width + x0]! + src[y0 * width + x1]!);
        dst[oy * ow + ox] = f(f(f(top + src[y1 * width + x0]!) + src[y1 * width + x1]!) * 0.25);
      }
    }
  }
  return out;
}

const X_OFFSET = f(0.42);
const Y_OFFSET = f(0.01);
const B_OFFSET = f(0.55);

/** One row of the opsin matrix applied to linear r, g, b, plus the bias, in float32. */
function mix(a: number, b: number, c: number, r: number, g: number, bl: number): number {
  return f(f(f(f(a * r) + f(b * g)) + f(c * bl)) + OPSIN_BIAS);
}

/** Linear RGB → XYB, made positive (X·14 + 0.42, Y + 0.01, B − Y + 0.55) as in the reference. */
export function toPositiveXyb(lin: Planes): Planes {
  const out = planes(lin.width, lin.height);
  const [r, g, b] = lin.p;
  const [ox, oy, ob] = out.p;
  const n = lin.width * lin.height;
  for (let i = 0; i < n; i++) {
    const ri = r[i]!;
    const gi = g[i]!;
    const bi = b[i]!;
    const l = f(floatCubeRoot(mix(M00, M01, M02, ri, gi, bi)) + NEG_CBRT_BIAS);
    const m = f(floatCubeRoot(mix(M10, M11, M12, ri, gi, bi)) + NEG_CBRT_BIAS);
    const s = f(floatCubeRoot(mix(M20, M21, M22, ri, gi, bi)) + NEG_CBRT_BIAS);
    const x = f(0.5 * f(l - m));
    const y = f(0.5 * f(l + m));
    ox[i] = f(x * 14) + X_OFFSET;
    oy[i] = y + Y_OFFSET;
    ob[i] = f(s - y) + B_OFFSET;
  }
  return out;
}

/** The weighted sum of the scales' statistics and the published polynomial: the score. */
export function combine(scales: ScaleScores[]): number {
  let sum = 0;
  let i = 0;
  for (let c = 0; c < 3; c++) {
    for (let scale = 0; scale < NUM_SCALES; scale++) {
      for (let n = 0; n < 2; n++) {
        const s = scales[scale];
        // Scales missing for small images contribute nothing (their weights are skipped).
        sum += WEIGHTS[i++]! * Math.abs(s?.ssim[c * 2 + n] ?? 0);
        sum += WEIGHTS[i++]! * Math.abs(s?.edge[c * 4 + n] ?? 0);
        sum += WEIGHTS[i++]! * Math.abs(s?.edge[c * 4 + n + 2] ?? 0);
      }
    }
  }
  sum *= 0.9562382616834844;
  sum = 2.326765642916932 * sum - 0.020884521182843837 * sum * sum + 6.248496625763138e-5 * sum * sum * sum;
  return sum > 0 ? 100 - 10 * sum ** 0.6276336467831387 : 100;
}

function scoreOnBackground(reference: RgbImage, distorted: RgbImage, background: number): number {
  let lin1 = toLinear(reference, background);
  let lin2 = toLinear(distorted, background);
  const scales: ScaleScores[] = [];
  for (let scale = 0; scale < NUM_SCALES; scale++) {
    if (lin1.width < 8 || lin1.height < 8) break;
    if (scale > 0) {
      lin1 = downsample(lin1);
      lin2 = downsample(lin2);
    }
    scales.push(scoreScale(toPositiveXyb(lin1), toPositiveXyb(lin2)));
  }
  return combine(scales);
}

/**
 * The backgrounds an image pair is scored on: a dark and a light one when either has alpha (the worse
 * score is kept, as the reference command-line tool does), mid grey otherwise.
 */
export function backgroundsOf(reference: RgbImage, distorted: RgbImage): number[] {
  if (reference.width !== distorted.width || reference.height !== distorted.height) {
    throw new Error(
      `ssimulacra2: sizes differ (${reference.width}×${reference.height} vs ${distorted.width}×${distorted.height})`,
    );
  }
  return reference.channels === 4 || distorted.channels === 4 ? [0.1, 0.9] : [0.5];
}

/**
 * SSIMULACRA 2 score of `distorted` against `reference` (same size), in TypeScript on the calling thread:
 * the reference for the native metric (quality/measure.ts), and its fallback.
 */
export function ssimulacra2(reference: RgbImage, distorted: RgbImage): number {
  return Math.min(
    ...backgroundsOf(reference, distorted).map((bg) => scoreOnBackground(reference, distorted, bg)),
  );
}
