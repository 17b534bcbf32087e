// The SSIMULACRA 2 blur: libjxl's recursive Gaussian (σ = 1.5; src/processors/shared/metric/
// recursive-gaussian.ts derives it and says why its float32 rounding is part of the score), computed in
// float32 as the reference computes it, four lanes at a time (simd.h).
#pragma once

#include <cstddef>
#include <vector>

#include "simd.h"

namespace ssimulacra2 {

/** The three resonators' float32 constants: y = n2·(in[n−N−1] + in[n+N−1]) − d1·y[n−1] − y[n−2]. */
struct BlurConstants {
  float n2[3];
  float d1[3];
};

/** Number of doubles the TypeScript side passes: n2[0..2] then d1[0..2] (float32 values). */
constexpr size_t kBlurConstantCount = 6;

BlurConstants BlurConstantsFrom(const double* flat);

/** The five blurred planes of one channel SSIM′ needs, in this order. */
enum Moment { kMu1, kMu2, kSigma11, kSigma22, kSigma12, kMoments };

/**
 * Which moments a MomentBlur computes: all five (a one-shot score), the reference's own (μ1, σ11: a
 * prepared reference keeps them, metric.h Reference), or the rest (μ2, σ22, σ12: a score against a prepared
 * reference). Each moment's recursion is independent of the others and runs the same operations in the
 * same order whatever the set, so a moment has the same bits in every set.
 */
enum class MomentSet { kAll, kReference, kDistorted };

/** Rows of row-pass output kept: a power of two ≥ the rows the column pass spans + the lookahead. */
constexpr long kBlurRingRows = 16;

/**
 * MomentBlur's buffers (~140 floats per column of the widest scale), allocated once per scoring and
 * reused by every channel and scale: allocating them per channel cost page faults (a large block is a
 * fresh mapping each time).
 */
struct BlurScratch {
  explicit BlurScratch(size_t max_stride);

  std::vector<float> ring, transposed, row_out, state, out, zeros;
};

/**
 * The five blurred moments of two planes a and b (mu1 = blur(a), mu2 = blur(b), blur(a·a), blur(b·b),
 * blur(a·b)), row by row, top to bottom, without storing a blurred plane: the row pass runs four rows at
 * a time ahead into a ring of rows, the column pass keeps its state per column.
 *
 * Layout for the vector lanes. Row pass: four image rows are transposed so that a lane is a row; the
 * recursion then runs along x on four rows at once, and on the five moments at once (fifteen
 * independent chains, which hides the recursion's latency); its outputs are transposed back. Column
 * pass: a lane is a column. Every lane does the scalar recursion of its own row or column, in the same
 * order, so the result does not depend on the lanes: it is the same as one pixel at a time.
 *
 * Planes have `stride` floats per row (a multiple of 4, ≥ width); columns from width on are padding,
 * whose blurred values are zero and must be ignored by the caller.
 */
class MomentBlur {
 public:
  /** `b` is unused (may be null) for MomentSet::kReference. */
  MomentBlur(const BlurConstants& k, const float* a, const float* b, size_t width, size_t height, size_t stride,
             BlurScratch& scratch, MomentSet set = MomentSet::kAll);

  /**
   * The next row of each moment of the set (rows 0 … height − 1 in order); valid until the next call.
   * Entries of moments outside the set are left as they were.
   */
  void Next(const float* rows[kMoments]);

 private:
  static constexpr long kRingRows = kBlurRingRows;

  void RowPassFrom(long row);
  const float* RingRow(int moment, long row) const;
  template <bool kHasTop>
  void ColumnStep(long n);

  BlurConstants k_;
  MomentSet set_;
  const int* moments_;  // the set's moments, in enum order
  int count_;
  const float* a_;
  const float* b_;
  long width_;
  long height_;
  long stride_;
  long step_;      // the column pass's next n
  long computed_;  // rows of the row pass done
  float* ring_;        // kMoments × kRingRows rows
  float* transposed_;  // a then b: per x one V4 of four rows, zero-padded both sides
  float* row_out_;     // kMoments × per x one V4 of four rows
  float* state_;       // column pass: kMoments × 3 resonators × {y[n−1], y[n−2]} rows
  float* out_;         // kMoments rows
  const float* zeros_;
  bool flip_;  // which of the two state rows holds y[n−1]
};

}  // namespace ssimulacra2
