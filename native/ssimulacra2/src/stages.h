// The stages of the metric that both a one-shot score (metric.cc ScaleStats) and a prepared reference
// (reference.cc) run: the same functions, so the two give the same bits. Internal to the addon.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "metric.h"
#include "recursive_gaussian.h"

namespace ssimulacra2 {
namespace stages {

/** One scale's three planes of one image, rows of `stride` floats (a multiple of 4): a view into PlaneMemory. */
struct Planes {
  size_t width;
  size_t height;
  size_t stride;
  float* p[3];
};

/**
 * Planes in one block, allocated once: 2 MB aligned and offered to transparent huge pages on Linux. The
 * first touches of fresh memory were ~2,600 page faults per megapixel per plane set, a third of a call's
 * CPU (user and system) on the 1280×960 pair when every plane was its own allocation.
 */
class PlaneMemory {
 public:
  explicit PlaneMemory(size_t floats);
  ~PlaneMemory();
  PlaneMemory(const PlaneMemory&) = delete;
  PlaneMemory& operator=(const PlaneMemory&) = delete;

  float* data() const { return data_; }
  /** Bytes allocated (rounded up to 2 MB). */
  size_t bytes() const { return bytes_; }

 private:
  float* data_;
  size_t bytes_;
};

/**
 * The scales scored for a width × height image: each scale while the previous one (the image itself for
 * the first) is at least 8 × 8, at most 6; none when the image is smaller than 8 × 8. Pointers unset.
 */
std::vector<Planes> ScaleLayout(size_t width, size_t height);

/** Floats of one plane set (three planes) of every scale of `layout`. */
size_t LayoutFloats(const std::vector<Planes>& layout);

/** Points `planes` (count per scale, each scale's p[0..2] then more) at consecutive planes from `next`. */
float* Assign(std::vector<Planes>& layout, float* next);

void ToLinear(const Image& image, Planes& out);

/** 2×2 means in float; edges repeat. */
void Downsample(const Planes& in, Planes& out);

/** Linear RGB → XYB made positive, in place. */
void ToPositiveXybInPlace(Planes& planes);

/** μ1 and σ11 of one scale of a prepared reference, per channel (planes of the scale's stride). */
struct ReferenceMoments {
  const float* mu1[3];
  const float* sigma11[3];
};

/**
 * One scale's statistics (kStatsPerScale numbers) of img2 against img1. With `reference`, its μ1 and σ11
 * are read from there instead of blurred again (the same bits: recursive_gaussian.h MomentSet).
 */
void ScoreScale(const Planes& img1, const Planes& img2, const BlurConstants& blur, BlurScratch& scratch,
                const ReferenceMoments* reference, double* stats);

}  // namespace stages
}  // namespace ssimulacra2
