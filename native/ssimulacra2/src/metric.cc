// The steps of ssimulacra2.ts in the same order and precision: linear planes (float32), 2×2 downsampling,
// XYB made positive, then per channel the blurred moments and the SSIM' and edge maps' 1- and 4-norms,
// accumulated in double. The compiler may vectorise the per-pixel loops (independent lanes); it may not
// contract a·b + c into a fused multiply-add (-ffp-contract=off), which would change the bits.
#include "metric.h"

#include <cmath>
#include <utility>

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

/**
 * XYB made positive, in place: each pixel's three linear values are read before its XYB values are
 * written. The next scale is downsampled from the linear planes before this runs, so no second set of
 * planes is needed (24 bytes per pixel less at the first scale).
 */
void ToPositiveXybInPlace(Planes& planes) {
  const double neg_cbrt_bias = -V8Cbrt(kOpsinBias);
  const size_t n = planes.width * planes.height;
  float* r = planes.p[0].data();
  float* g = planes.p[1].data();
  float* b = planes.p[2].data();
  for (size_t i = 0; i < n; i++) {
    const double ri = r[i];
    const double gi = g[i];
    const double bi = b[i];
    const double l = V8Cbrt(NonNegative(kM00 * ri + kM01 * gi + kM02 * bi + kOpsinBias)) + neg_cbrt_bias;
    const double m = V8Cbrt(NonNegative(kM10 * ri + kM11 * gi + kM12 * bi + kOpsinBias)) + neg_cbrt_bias;
    const double s = V8Cbrt(NonNegative(kM20 * ri + kM21 * gi + kM22 * bi + kOpsinBias)) + neg_cbrt_bias;
    const double x = 0.5 * (l - m);
    const double y = 0.5 * (l + m);
    r[i] = static_cast<float>(x * 14 + 0.42);
    g[i] = static_cast<float>(y + 0.01);
    b[i] = static_cast<float>(s - y + 0.55);
  }
}

/**
 * One scale's statistics. The five blurred planes of a channel are streamed row by row (BlurStream) and
 * each row's SSIM' and edge terms are added as it comes, in the same pixel order as a whole-plane pass,
 * so the double sums are the same.
 */
void ScoreScale(const Planes& img1, const Planes& img2, const BlurConstants& blur, double* stats) {
  const size_t w = img1.width;
  const size_t h = img1.height;
  const size_t n = w * h;
  const double inv = 1.0 / static_cast<double>(n);
  for (int c = 0; c < 3; c++) {
    const float* a = img1.p[c].data();
    const float* b = img2.p[c].data();
    BlurStream blur11(blur, a, a, w, h);
    BlurStream blur22(blur, b, b, w, h);
    BlurStream blur12(blur, a, b, w, h);
    BlurStream blur1(blur, a, nullptr, w, h);
    BlurStream blur2(blur, b, nullptr, w, h);
    double ssim1 = 0, ssim4 = 0, art1 = 0, art4 = 0, lost1 = 0, lost4 = 0;
    for (size_t y = 0; y < h; y++) {
      const float* s11 = blur11.Next();
      const float* s22 = blur22.Next();
      const float* s12 = blur12.Next();
      const float* mu1 = blur1.Next();
      const float* mu2 = blur2.Next();
      const float* ar = a + y * w;
      const float* br = b + y * w;
      for (size_t x = 0; x < w; x++) {
        const double m1 = mu1[x];
        const double m2 = mu2[x];
        const double num_m = 1 - (m1 - m2) * (m1 - m2);
        const double num_s = 2 * (s12[x] - m1 * m2) + kC2;
        const double den_s = s11[x] - m1 * m1 + (s22[x] - m2 * m2) + kC2;
        double d = 1 - (num_m * num_s) / den_s;
        if (d < 0) d = 0;
        ssim1 += d;
        const double d2 = d * d;
        ssim4 += d2 * d2;
        const double e = (1 + std::fabs(br[x] - m2)) / (1 + std::fabs(ar[x] - m1)) - 1;
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
  std::vector<double> stats;
  // As the TypeScript: a scale is scored while the previous one (the image itself for the first) is at
  // least 8 × 8, so the last scored scale may be smaller.
  if (width < 8 || height < 8) return stats;
  Planes lin1 = ToLinear(reference, width, height);
  Planes lin2 = ToLinear(distorted, width, height);
  for (int scale = 0; scale < kNumScales; scale++) {
    const bool more = scale + 1 < kNumScales && lin1.width >= 8 && lin1.height >= 8;
    Planes next1 = more ? Downsample(lin1) : Planes(0, 0);
    Planes next2 = more ? Downsample(lin2) : Planes(0, 0);
    ToPositiveXybInPlace(lin1);
    ToPositiveXybInPlace(lin2);
    stats.resize(stats.size() + kStatsPerScale);
    ScoreScale(lin1, lin2, blur, stats.data() + stats.size() - kStatsPerScale);
    if (!more) break;
    lin1 = std::move(next1);
    lin2 = std::move(next2);
  }
  return stats;
}

}  // namespace ssimulacra2
