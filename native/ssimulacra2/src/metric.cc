// SSIMULACRA 2's per-scale statistics in float32, as the reference (libjxl tools/ssimulacra2.cc) computes
// them: linear planes, 2×2 downsampling, XYB made positive, then per channel the five blurred moments and
// the SSIM′ and edge maps (float, the map value itself in double), their 1- and 4-norms summed in double.
// Four pixels per operation (simd.h); sums are kept per lane (x mod 4) and added in a fixed order, so the
// statistics are the same bits on every machine, every run.
#include "metric.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "simd.h"
#include "stages.h"

namespace ssimulacra2 {
namespace stages {
namespace {

constexpr float kC2 = 0.0009f;
constexpr int kNumScales = 6;

// The opsin matrix as ssimulacra2.ts defines it (rows summing to 1 in double), rounded to float.
constexpr float kM00 = 0.3f;
constexpr float kM01 = static_cast<float>(1 - 0.078 - 0.3);
constexpr float kM02 = 0.078f;
constexpr float kM10 = 0.23f;
constexpr float kM11 = static_cast<float>(1 - 0.078 - 0.23);
constexpr float kM12 = 0.078f;
constexpr float kM20 = static_cast<float>(0.24342268924547819);
constexpr float kM21 = static_cast<float>(0.20476744424496821);
constexpr float kM22 = static_cast<float>(1 - 0.24342268924547819 - 0.20476744424496821);
constexpr float kOpsinBias = static_cast<float>(0.0037930732552754493);

/** Zeros in the padding columns of every row (read by the vector loops, never counted). */
void ZeroPadding(Planes& planes) {
  for (float* plane : planes.p)
    for (size_t y = 0; y < planes.height; y++)
      std::fill(plane + y * planes.stride + planes.width, plane + (y + 1) * planes.stride, 0.0f);
}

}  // namespace

PlaneMemory::PlaneMemory(size_t floats) {
  constexpr size_t kHuge = size_t{2} << 20;
  bytes_ = (floats * sizeof(float) + kHuge - 1) / kHuge * kHuge;
  void* memory = nullptr;
  // Out of memory ends the process, as a failed std::vector allocation does here (no exceptions).
  if (posix_memalign(&memory, kHuge, bytes_) != 0) std::abort();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(memory, bytes_, MADV_HUGEPAGE);  // a hint: without it, the same numbers in 4 KB pages
#endif
  data_ = static_cast<float*>(memory);
}

PlaneMemory::~PlaneMemory() { std::free(data_); }

std::vector<Planes> ScaleLayout(size_t width, size_t height) {
  std::vector<Planes> layout;
  if (width < 8 || height < 8) return layout;
  for (size_t w = width, h = height;; w = (w + 1) / 2, h = (h + 1) / 2) {
    layout.push_back(Planes{w, h, (w + 3) & ~size_t{3}, {}});
    if (layout.size() == static_cast<size_t>(kNumScales) || w < 8 || h < 8) break;
  }
  return layout;
}

size_t LayoutFloats(const std::vector<Planes>& layout) {
  size_t floats = 0;
  for (const Planes& planes : layout) floats += 3 * planes.stride * planes.height;
  return floats;
}

float* Assign(std::vector<Planes>& layout, float* next) {
  for (Planes& planes : layout)
    for (float*& plane : planes.p) {
      plane = next;
      next += planes.stride * planes.height;
    }
  return next;
}

void ToLinear(const Image& image, Planes& out) {
  const size_t width = out.width;
  const uint8_t* d = image.data;
  for (size_t y = 0; y < out.height; y++) {
    float* r = out.p[0] + y * out.stride;
    float* g = out.p[1] + y * out.stride;
    float* b = out.p[2] + y * out.stride;
    const uint8_t* px = d + y * width * image.channels;
    if (image.channels == 4) {
      for (size_t x = 0; x < width; x++) {
        const float* row = image.linear + static_cast<size_t>(px[x * 4 + 3]) * 256;
        r[x] = row[px[x * 4]];
        g[x] = row[px[x * 4 + 1]];
        b[x] = row[px[x * 4 + 2]];
      }
    } else {
      for (size_t x = 0; x < width; x++) {
        r[x] = image.linear[px[x * 3]];
        g[x] = image.linear[px[x * 3 + 1]];
        b[x] = image.linear[px[x * 3 + 2]];
      }
    }
  }
  ZeroPadding(out);
}

/** 2×2 means in float, summed in the reference's order (row by row, left to right); edges repeat. */
void Downsample(const Planes& in, Planes& out) {
  const size_t w = in.width;
  const size_t h = in.height;
  for (int c = 0; c < 3; c++) {
    for (size_t oy = 0; oy < out.height; oy++) {
      const float* r0 = in.p[c] + oy * 2 * in.stride;
      const float* r1 = in.p[c] + (oy * 2 + 1 < h ? oy * 2 + 1 : h - 1) * in.stride;
      float* dst = out.p[c] + oy * out.stride;
      for (size_t ox = 0; ox < out.width; ox++) {
        const size_t x0 = ox * 2;
        const size_t x1 = x0 + 1 < w ? x0 + 1 : w - 1;
        dst[ox] = (((r0[x0] + r0[x1]) + r1[x0]) + r1[x1]) * 0.25f;
      }
    }
  }
  ZeroPadding(out);
}

/**
 * XYB made positive (X·14 + 0.42, Y + 0.01, B − Y + 0.55), in place, four pixels at a time; padding
 * columns are converted too and never read. The next scale is downsampled from the linear planes first.
 */
void ToPositiveXybInPlace(Planes& planes) {
  const V4 neg_cbrt_bias = -CubeRoot(Splat(kOpsinBias));
  const size_t n = planes.stride * planes.height;
  float* r = planes.p[0];
  float* g = planes.p[1];
  float* b = planes.p[2];
  for (size_t i = 0; i < n; i += 4) {
    const V4 ri = Load(r + i);
    const V4 gi = Load(g + i);
    const V4 bi = Load(b + i);
    const V4 bias = Splat(kOpsinBias);
    const V4 l = CubeRoot(Splat(kM00) * ri + Splat(kM01) * gi + Splat(kM02) * bi + bias) + neg_cbrt_bias;
    const V4 m = CubeRoot(Splat(kM10) * ri + Splat(kM11) * gi + Splat(kM12) * bi + bias) + neg_cbrt_bias;
    const V4 s = CubeRoot(Splat(kM20) * ri + Splat(kM21) * gi + Splat(kM22) * bi + bias) + neg_cbrt_bias;
    const V4 x = Splat(0.5f) * (l - m);
    const V4 y = Splat(0.5f) * (l + m);
    Store(r + i, x * Splat(14.0f) + Splat(0.42f));
    Store(g + i, y + Splat(0.01f));
    Store(b + i, (s - y) + Splat(0.55f));
  }
}

namespace {

/** Per-lane double sums of a map's 1- and 4-norm terms: lanes 0–1 and 2–3. */
struct NormSums {
  V2 sum1[2] = {};
  V2 sum4[2] = {};

  void Add(V2 lo, V2 hi) {
    sum1[0] += lo;
    sum1[1] += hi;
    const V2 lo2 = lo * lo;
    const V2 hi2 = hi * hi;
    sum4[0] += lo2 * lo2;
    sum4[1] += hi2 * hi2;
  }

  /** The mean (1-norm) and the 4-norm over n pixels; lanes added in a fixed order. */
  void Norms(double inv, double* out) const {
    const double s1 = (sum1[0][0] + sum1[0][1]) + (sum1[1][0] + sum1[1][1]);
    const double s4 = (sum4[0][0] + sum4[0][1]) + (sum4[1][0] + sum4[1][1]);
    out[0] = s1 * inv;
    out[1] = std::sqrt(std::sqrt(s4 * inv));
  }
};

/** Lanes past the width (the last vector of a row) count as 0, whatever the padding holds. */
inline void Mask(V2& lo, V2& hi, long valid) {
  if (valid >= 4) return;
  lo = V2{lo[0], valid > 1 ? lo[1] : 0.0};
  hi = V2{valid > 2 ? hi[0] : 0.0, 0.0};
}

}  // namespace

/**
 * One scale's statistics: per channel the SSIM′ map and the edge maps (ringing, blurring), row by row;
 * a prepared reference's μ1 and σ11 rows are read, not blurred again.
 */
void ScoreScale(const Planes& img1, const Planes& img2, const BlurConstants& blur, BlurScratch& scratch,
                const ReferenceMoments* reference, double* stats) {
  const size_t w = img1.width;
  const size_t h = img1.height;
  const size_t stride = img1.stride;
  const double inv = 1.0 / static_cast<double>(w * h);
  const V4 one = Splat(1.0f);
  const V4 c2 = Splat(kC2);
  const V2 one2 = Splat2(1.0);
  for (int c = 0; c < 3; c++) {
    const float* a = img1.p[c];
    const float* b = img2.p[c];
    MomentBlur blurred(blur, a, b, w, h, stride, scratch,
                       reference == nullptr ? MomentSet::kAll : MomentSet::kDistorted);
    NormSums ssim, ringing, blurring;
    for (size_t y = 0; y < h; y++) {
      const float* row[kMoments];
      blurred.Next(row);
      if (reference != nullptr) {
        row[kMu1] = reference->mu1[c] + y * stride;
        row[kSigma11] = reference->sigma11[c] + y * stride;
      }
      const float* ar = a + y * stride;
      const float* br = b + y * stride;
      for (size_t x = 0; x < stride; x += 4) {
        const V4 m1 = Load(row[kMu1] + x);
        const V4 m2 = Load(row[kMu2] + x);
        const V4 diff = m1 - m2;
        const V4 num_m = one - diff * diff;
        const V4 num_s = Splat(2.0f) * (Load(row[kSigma12] + x) - m1 * m2) + c2;
        const V4 den_s = (Load(row[kSigma11] + x) - m1 * m1) + (Load(row[kSigma22] + x) - m2 * m2) + c2;
        const V4 ratio = (num_m * num_s) / den_s;
        V2 dlo = Max0(one2 - LowHalf(ratio));
        V2 dhi = Max0(one2 - HighHalf(ratio));
        const V4 edge1 = Abs(Load(ar + x) - m1);
        const V4 edge2 = Abs(Load(br + x) - m2);
        V2 elo = (one2 + LowHalf(edge2)) / (one2 + LowHalf(edge1)) - one2;
        V2 ehi = (one2 + HighHalf(edge2)) / (one2 + HighHalf(edge1)) - one2;
        const long valid = static_cast<long>(w - x);
        Mask(dlo, dhi, valid);
        Mask(elo, ehi, valid);
        ssim.Add(dlo, dhi);
        ringing.Add(Max0(elo), Max0(ehi));
        blurring.Add(Max0(-elo), Max0(-ehi));
      }
    }
    ssim.Norms(inv, stats + c * 2);
    double* edge = stats + 6 + c * 4;
    ringing.Norms(inv, edge);
    blurring.Norms(inv, edge + 2);
  }
}

}  // namespace stages

std::vector<double> ScaleStats(const Image& reference, const Image& distorted, size_t width, size_t height,
                               const BlurConstants& blur) {
  using namespace stages;
  std::vector<double> stats;
  std::vector<Planes> scales[2] = {ScaleLayout(width, height), ScaleLayout(width, height)};
  if (scales[0].empty()) return stats;
  // Every scale's planes of both images in one block (24 bytes per pixel of the image, × 4/3 for the
  // smaller scales), allocated once per call.
  PlaneMemory memory(2 * LayoutFloats(scales[0]));
  Assign(scales[1], Assign(scales[0], memory.data()));
  BlurScratch scratch(scales[0][0].stride);
  ToLinear(reference, scales[0][0]);
  ToLinear(distorted, scales[1][0]);
  for (size_t scale = 0; scale < scales[0].size(); scale++) {
    Planes& planes1 = scales[0][scale];
    Planes& planes2 = scales[1][scale];
    if (scale + 1 < scales[0].size()) {
      Downsample(planes1, scales[0][scale + 1]);
      Downsample(planes2, scales[1][scale + 1]);
    }
    ToPositiveXybInPlace(planes1);
    ToPositiveXybInPlace(planes2);
    stats.resize(stats.size() + kStatsPerScale);
    ScoreScale(planes1, planes2, blur, scratch, nullptr, stats.data() + stats.size() - kStatsPerScale);
  }
  return stats;
}

void CubeRoots(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; i += 4) {
    float lanes[4] = {};
    for (size_t j = 0; j < 4 && i + j < n; j++) lanes[j] = in[i + j];
    const V4 root = CubeRoot(Load(lanes));
    for (size_t j = 0; j < 4 && i + j < n; j++) out[i + j] = root[j];
  }
}

}  // namespace ssimulacra2
