// The steps of ssimulacra2.ts in the same order and precision: linear planes (float32), 2×2 downsampling,
// XYB made positive, then per channel the blurred moments and the SSIM' and edge maps' 1- and 4-norms,
// accumulated in double. The compiler may vectorise the per-pixel loops (independent lanes); it may not
// contract a·b + c into a fused multiply-add (-ffp-contract=off), which would change the bits.
#include "metric.h"

#include <cmath>

#include "fdlibm_cbrt.h"

namespace ssimulacra2 {
namespace {

constexpr double kC2 = 0.0009;
constexpr int kNumScales = 6;

constexpr double kM00 = 0.3;
constexpr double kM02 = 0.078;
constexpr double kM01 = 1 - kM02 - kM00;
constexpr double kM10 = 0.23;
constexpr double kM12 = 0.078;
constexpr double kM11 = 1 - kM12 - kM10;
constexpr double kM20 = 0.24342268924547819;
constexpr double kM21 = 0.20476744424496821;
constexpr double kM22 = 1 - kM20 - kM21;
constexpr double kOpsinBias = 0.0037930732552754493;

struct Planes {
  size_t width;
  size_t height;
  std::vector<float> p[3];

  Planes(size_t w, size_t h) : width(w), height(h) {
    for (auto& plane : p) plane.assign(w * h, 0.0f);
  }
};

Planes ToLinear(const Image& image, size_t width, size_t height) {
  Planes out(width, height);
  const size_t n = width * height;
  const uint8_t* d = image.data;
  float* r = out.p[0].data();
  float* g = out.p[1].data();
  float* b = out.p[2].data();
  if (image.channels == 4) {
    for (size_t i = 0; i < n; i++) {
      const float* row = image.linear + static_cast<size_t>(d[i * 4 + 3]) * 256;
      r[i] = row[d[i * 4]];
      g[i] = row[d[i * 4 + 1]];
      b[i] = row[d[i * 4 + 2]];
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      r[i] = image.linear[d[i * 3]];
      g[i] = image.linear[d[i * 3 + 1]];
      b[i] = image.linear[d[i * 3 + 2]];
    }
  }
  return out;
}

Planes Downsample(const Planes& in) {
  const size_t w = in.width;
  const size_t h = in.height;
  const size_t ow = (w + 1) / 2;
  const size_t oh = (h + 1) / 2;
  Planes out(ow, oh);
  for (int c = 0; c < 3; c++) {
    const float* src = in.p[c].data();
    float* dst = out.p[c].data();
    for (size_t oy = 0; oy < oh; oy++) {
      const size_t y0 = oy * 2;
      const size_t y1 = y0 + 1 < h ? y0 + 1 : h - 1;
      for (size_t ox = 0; ox < ow; ox++) {
        const size_t x0 = ox * 2;
        const size_t x1 = x0 + 1 < w ? x0 + 1 : w - 1;
        const double sum = static_cast<double>(src[y0 * w + x0]) + src[y0 * w + x1] + src[y1 * w + x0] +
                           src[y1 * w + x1];
        dst[oy * ow + ox] = static_cast<float>(sum * 0.25);
      }
    }
  }
  return out;
}

/** Math.max(0, v) for the values here (never NaN), inline: std::fmax was a library call in the hot loop. */
inline double NonNegative(double v) { return v > 0 ? v : 0.0; }

Planes ToPositiveXyb(const Planes& lin) {
  const double neg_cbrt_bias = -V8Cbrt(kOpsinBias);
  Planes out(lin.width, lin.height);
  const size_t n = lin.width * lin.height;
  const float* r = lin.p[0].data();
  const float* g = lin.p[1].data();
  const float* b = lin.p[2].data();
  for (size_t i = 0; i < n; i++) {
    const double ri = r[i];
    const double gi = g[i];
    const double bi = b[i];
    const double l = V8Cbrt(NonNegative(kM00 * ri + kM01 * gi + kM02 * bi + kOpsinBias)) + neg_cbrt_bias;
    const double m = V8Cbrt(NonNegative(kM10 * ri + kM11 * gi + kM12 * bi + kOpsinBias)) + neg_cbrt_bias;
    const double s = V8Cbrt(NonNegative(kM20 * ri + kM21 * gi + kM22 * bi + kOpsinBias)) + neg_cbrt_bias;
    const double x = 0.5 * (l - m);
    const double y = 0.5 * (l + m);
    out.p[0][i] = static_cast<float>(x * 14 + 0.42);
    out.p[1][i] = static_cast<float>(y + 0.01);
    out.p[2][i] = static_cast<float>(s - y + 0.55);
  }
  return out;
}

/**
 * The seven scratch planes of a scale, allocated once at the first (largest) scale and reused by the
 * smaller ones: fresh zeroed planes per scale cost 3–4 % of a call's CPU (page faults and memset).
 * Every element a scale reads is written first, so what an earlier scale left there never matters.
 */
struct Scratch {
  std::vector<float> tmp, mu1, mu2, s11, s22, s12, mul;

  explicit Scratch(size_t n) : tmp(n), mu1(n), mu2(n), s11(n), s22(n), s12(n), mul(n) {}
};

void ScoreScale(const Planes& img1, const Planes& img2, const BlurConstants& blur, Scratch& scratch,
                double* stats) {
  const size_t w = img1.width;
  const size_t h = img1.height;
  const size_t n = w * h;
  float* tmp = scratch.tmp.data();
  float* mu1 = scratch.mu1.data();
  float* mu2 = scratch.mu2.data();
  float* s11 = scratch.s11.data();
  float* s22 = scratch.s22.data();
  float* s12 = scratch.s12.data();
  float* mul = scratch.mul.data();
  const double inv = 1.0 / static_cast<double>(n);
  for (int c = 0; c < 3; c++) {
    const float* a = img1.p[c].data();
    const float* b = img2.p[c].data();
    for (size_t i = 0; i < n; i++) mul[i] = static_cast<float>(static_cast<double>(a[i]) * a[i]);
    BlurPlane(blur, mul, s11, tmp, w, h);
    for (size_t i = 0; i < n; i++) mul[i] = static_cast<float>(static_cast<double>(b[i]) * b[i]);
    BlurPlane(blur, mul, s22, tmp, w, h);
    for (size_t i = 0; i < n; i++) mul[i] = static_cast<float>(static_cast<double>(a[i]) * b[i]);
    BlurPlane(blur, mul, s12, tmp, w, h);
    BlurPlane(blur, a, mu1, tmp, w, h);
    BlurPlane(blur, b, mu2, tmp, w, h);
    double ssim1 = 0, ssim4 = 0, art1 = 0, art4 = 0, lost1 = 0, lost4 = 0;
    for (size_t i = 0; i < n; i++) {
      const double m1 = mu1[i];
      const double m2 = mu2[i];
      const double num_m = 1 - (m1 - m2) * (m1 - m2);
      const double num_s = 2 * (s12[i] - m1 * m2) + kC2;
      const double den_s = s11[i] - m1 * m1 + (s22[i] - m2 * m2) + kC2;
      double d = 1 - (num_m * num_s) / den_s;
      if (d < 0) d = 0;
      ssim1 += d;
      const double d2 = d * d;
      ssim4 += d2 * d2;
      const double e = (1 + std::fabs(b[i] - m2)) / (1 + std::fabs(a[i] - m1)) - 1;
      if (e > 0) {
        art1 += e;
        const double e2 = e * e;
        art4 += e2 * e2;
      } else if (e < 0) {
        lost1 -= e;
        const double e2 = e * e;
        lost4 += e2 * e2;
      }
    }
    stats[c * 2] = ssim1 * inv;
    stats[c * 2 + 1] = std::sqrt(std::sqrt(ssim4 * inv));
    double* edge = stats + 6 + c * 4;
    edge[0] = art1 * inv;
    edge[1] = std::sqrt(std::sqrt(art4 * inv));
    edge[2] = lost1 * inv;
    edge[3] = std::sqrt(std::sqrt(lost4 * inv));
  }
}

}  // namespace

std::vector<double> ScaleStats(const Image& reference, const Image& distorted, size_t width, size_t height,
                               const BlurConstants& blur) {
  Planes lin1 = ToLinear(reference, width, height);
  Planes lin2 = ToLinear(distorted, width, height);
  std::vector<double> stats;
  Scratch scratch(width * height);
  for (int scale = 0; scale < kNumScales; scale++) {
    if (lin1.width < 8 || lin1.height < 8) break;
    if (scale > 0) {
      lin1 = Downsample(lin1);
      lin2 = Downsample(lin2);
    }
    stats.resize(stats.size() + kStatsPerScale);
    ScoreScale(ToPositiveXyb(lin1), ToPositiveXyb(lin2), blur, scratch, stats.data() + stats.size() - kStatsPerScale);
  }
  return stats;
}

}  // namespace ssimulacra2
