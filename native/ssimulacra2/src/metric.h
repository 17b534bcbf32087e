// SSIMULACRA 2 per-scale statistics (what scoreOnBackground in src/processors/shared/metric/ssimulacra2.ts
// computes, in float32 as the reference does) up to, not including, the weighted sum, which stays in
// TypeScript (cheap). Pure computation: no Node-API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "recursive_gaussian.h"

namespace ssimulacra2 {

/** 8-bit interleaved RGB or RGBA with its sRGB → linear table (256 entries, or 256 · 256 by alpha, value). */
struct Image {
  const uint8_t* data;
  int channels;  // 3 or 4
  const float* linear;
};

/** Numbers per scale: ssim[c·2 + n] (6), then edge[c·4 + n] ringing / [c·4 + 2 + n] blurring (12). */
constexpr size_t kStatsPerScale = 18;

/**
 * The per-scale statistics of distorted against reference (both width × height), scale after scale
 * while the image is at least 8 × 8, at most 6 scales: kStatsPerScale numbers each.
 */
std::vector<double> ScaleStats(const Image& reference, const Image& distorted, size_t width, size_t height,
                               const BlurConstants& blur);

/**
 * A reference prepared once for several scores against it (a quality search scores 3–6 trials against
 * the same reference): per scale its positive-XYB planes and, per channel, its blurred μ1 and σ11 (nine
 * float planes, ~48 bytes per pixel over the scales, in one block). StatsAgainst then computes only the
 * distorted side (its XYB, μ2, σ22, σ12): the same float operations in the same order as ScaleStats, so
 * the same bits. Read-only once built: several StatsAgainst may run on it at once.
 */
class Reference {
 public:
  Reference(const Image& image, size_t width, size_t height, const BlurConstants& blur);
  ~Reference();
  Reference(const Reference&) = delete;
  Reference& operator=(const Reference&) = delete;

  size_t width() const { return width_; }
  size_t height() const { return height_; }
  /** Bytes the reference holds (its planes' block). */
  size_t bytes() const;

  /** ScaleStats(reference, distorted, width, height, blur) for a distorted image of the same size. */
  std::vector<double> StatsAgainst(const Image& distorted) const;

 private:
  struct State;
  size_t width_;
  size_t height_;
  std::unique_ptr<State> state_;
};

/** The metric's cube root (simd.h CubeRoot) of n floats, for its test. */
void CubeRoots(const float* in, float* out, size_t n);

}  // namespace ssimulacra2
