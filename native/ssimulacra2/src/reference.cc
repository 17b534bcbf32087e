// A prepared reference (metric.h Reference): the reference's side of every scale computed once, kept,
// and read by each score against it. Same stages as ScaleStats (stages.h), in the same order per image.
#include <cstring>

#include "metric.h"
#include "stages.h"

namespace ssimulacra2 {

using stages::Planes;
using stages::PlaneMemory;

struct Reference::State {
  BlurConstants blur;
  std::vector<Planes> xyb;  // per scale, positive XYB (linear until its scale is done)
  std::vector<Planes> mu1;  // per scale, the blurred X, Y, B planes
  std::vector<Planes> sigma11;
  std::unique_ptr<PlaneMemory> memory;
};

Reference::Reference(const Image& image, size_t width, size_t height, const BlurConstants& blur)
    : width_(width), height_(height), state_(new State) {
  State& s = *state_;
  s.blur = blur;
  s.xyb = s.mu1 = s.sigma11 = stages::ScaleLayout(width, height);
  if (s.xyb.empty()) return;
  // One block for the nine planes of every scale: three of XYB, three of μ1, three of σ11.
  s.memory.reset(new PlaneMemory(3 * stages::LayoutFloats(s.xyb)));
  stages::Assign(s.sigma11, stages::Assign(s.mu1, stages::Assign(s.xyb, s.memory->data())));
  BlurScratch scratch(s.xyb[0].stride);
  stages::ToLinear(image, s.xyb[0]);
  for (size_t scale = 0; scale < s.xyb.size(); scale++) {
    Planes& planes = s.xyb[scale];
    if (scale + 1 < s.xyb.size()) stages::Downsample(planes, s.xyb[scale + 1]);
    stages::ToPositiveXybInPlace(planes);
    const size_t stride = planes.stride;
    for (int c = 0; c < 3; c++) {
      MomentBlur blurred(blur, planes.p[c], nullptr, planes.width, planes.height, stride, scratch,
                         MomentSet::kReference);
      for (size_t y = 0; y < planes.height; y++) {
        const float* row[kMoments];
        blurred.Next(row);
        // Whole rows, padding included (zeros, as the one-shot blur gives them).
        std::memcpy(s.mu1[scale].p[c] + y * stride, row[kMu1], stride * sizeof(float));
        std::memcpy(s.sigma11[scale].p[c] + y * stride, row[kSigma11], stride * sizeof(float));
      }
    }
  }
}

Reference::~Reference() = default;

size_t Reference::bytes() const { return state_->memory ? state_->memory->bytes() : 0; }

std::vector<double> Reference::StatsAgainst(const Image& distorted) const {
  const State& s = *state_;
  std::vector<double> stats;
  if (s.xyb.empty()) return stats;
  std::vector<Planes> scales = stages::ScaleLayout(width_, height_);
  PlaneMemory memory(stages::LayoutFloats(scales));
  stages::Assign(scales, memory.data());
  BlurScratch scratch(scales[0].stride);
  stages::ToLinear(distorted, scales[0]);
  for (size_t scale = 0; scale < scales.size(); scale++) {
    Planes& planes = scales[scale];
    if (scale + 1 < scales.size()) stages::Downsample(planes, scales[scale + 1]);
    stages::ToPositiveXybInPlace(planes);
    const stages::ReferenceMoments moments{
        {s.mu1[scale].p[0], s.mu1[scale].p[1], s.mu1[scale].p[2]},
        {s.sigma11[scale].p[0], s.sigma11[scale].p[1], s.sigma11[scale].p[2]}};
    stats.resize(stats.size() + kStatsPerScale);
    stages::ScoreScale(s.xyb[scale], planes, s.blur, scratch, &moments,
                       stats.data() + stats.size() - kStatsPerScale);
  }
  return stats;
}

}  // namespace ssimulacra2
