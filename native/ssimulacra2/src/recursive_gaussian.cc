// Row and column passes of the recursive Gaussian in float32 vector lanes (recursive_gaussian.h).
#include "recursive_gaussian.h"

#include <algorithm>

namespace ssimulacra2 {
namespace {

constexpr long kN = 5;                  // N of the paper for σ = 1.5, as in the TypeScript
constexpr long kPadLeft = 2 * kN;       // in[n − N − 1] from n = −N + 1 on
constexpr long kPadRight = kN - 1 + 3;  // in[n + N − 1] up to n = width − 1, and the stride's padding

/** Moment m's row-pass input at a step: in[n − N − 1] + in[n + N − 1], products rounded to float first. */
inline V4 TapSum(int m, V4 al, V4 ar, V4 bl, V4 br) {
  switch (m) {
    case kMu1:
      return al + ar;
    case kMu2:
      return bl + br;
    case kSigma11:
      return al * al + ar * ar;
    case kSigma22:
      return bl * bl + br * br;
    default:
      return al * bl + ar * br;
  }
}

/**
 * The row pass's recursion for moments kMs… along x, on four rows (lanes) at
 * once: y = n2·sum + (−d1·y[n−1] − y[n−2]) per resonator, output y1 + (y3 + y5), the reference's order.
 * ta and tb hold per x one V4 (four rows) of a and b, kPadLeft zeros first; out gets per moment and x
 * one V4. A few moments per loop: enough independent chains to hide the recursion's latency, few enough
 * that their states stay in the 16 vector registers.
 */
template <int... kMs>
void RowRecursion(const BlurConstants& k, const float* ta, const float* tb, float* out, long width, long stride) {
  constexpr int kCount = sizeof...(kMs);
  constexpr int kMoment[kCount] = {kMs...};
  V4 n2[3], neg_d1[3];
  for (int r = 0; r < 3; r++) {
    n2[r] = Splat(k.n2[r]);
    neg_d1[r] = Splat(-k.d1[r]);
  }
  V4 prev[kCount][3] = {};
  V4 prev2[kCount][3] = {};
  auto step = [&](long n, bool store) __attribute__((always_inline)) {
    const long j = kPadLeft + n;
    const V4 al = Load(ta + 4 * (j - kN - 1));
    const V4 ar = Load(ta + 4 * (j + kN - 1));
    const V4 bl = Load(tb + 4 * (j - kN - 1));
    const V4 br = Load(tb + 4 * (j + kN - 1));
    for (int i = 0; i < kCount; i++) {
      const V4 sum = TapSum(kMoment[i], al, ar, bl, br);
      V4 y[3];
      for (int r = 0; r < 3; r++) {
        y[r] = n2[r] * sum + (neg_d1[r] * prev[i][r] - prev2[i][r]);
        prev2[i][r] = prev[i][r];
        prev[i][r] = y[r];
      }
      if (store) Store(out + 4 * (kMoment[i] * stride + n), y[0] + (y[1] + y[2]));
    }
  };
  long n = -kN + 1;
  for (; n < 0; n++) step(n, false);
  for (; n < width; n++) step(n, true);
}

constexpr int kAllMoments[] = {kMu1, kMu2, kSigma11, kSigma22, kSigma12};
constexpr int kReferenceMoments[] = {kMu1, kSigma11};
constexpr int kDistortedMoments[] = {kMu2, kSigma22, kSigma12};

}  // namespace

BlurConstants BlurConstantsFrom(const double* flat) {
  BlurConstants c;
  for (int k = 0; k < 3; k++) {
    c.n2[k] = static_cast<float>(flat[k]);
    c.d1[k] = static_cast<float>(flat[3 + k]);
  }
  return c;
}

BlurScratch::BlurScratch(size_t max_stride)
    : ring(kMoments * kBlurRingRows * max_stride),
      transposed(2 * 4 * (kPadLeft + max_stride + kPadRight)),
      row_out(kMoments * 4 * max_stride),
      state(kMoments * 3 * 2 * max_stride),
      out(kMoments * max_stride),
      zeros(max_stride) {}

MomentBlur::MomentBlur(const BlurConstants& k, const float* a, const float* b, size_t width, size_t height,
                       size_t stride, BlurScratch& scratch, MomentSet set)
    : k_(k),
      set_(set),
      moments_(set == MomentSet::kAll ? kAllMoments
               : set == MomentSet::kReference ? kReferenceMoments
                                               : kDistortedMoments),
      count_(set == MomentSet::kAll ? 5 : set == MomentSet::kReference ? 2 : 3),
      a_(a),
      b_(b),
      width_(static_cast<long>(width)),
      height_(static_cast<long>(height)),
      stride_(static_cast<long>(stride)),
      step_(-kN + 1),
      computed_(0),
      ring_(scratch.ring.data()),
      transposed_(scratch.transposed.data()),
      row_out_(scratch.row_out.data()),
      state_(scratch.state.data()),
      out_(scratch.out.data()),
      zeros_(scratch.zeros.data()),
      flip_(false) {
  // What is read before it is written starts as zeros: the recursions' states, the row pass's left
  // padding, its outputs past the width (never written); the ring and out_ are written first.
  std::fill(transposed_, transposed_ + 2 * 4 * (kPadLeft + stride + kPadRight), 0.0f);
  std::fill(row_out_, row_out_ + kMoments * 4 * stride, 0.0f);
  std::fill(state_, state_ + kMoments * 3 * 2 * stride, 0.0f);
}

const float* MomentBlur::RingRow(int moment, long row) const {
  return ring_ + (moment * kRingRows + (row % kRingRows)) * stride_;
}

/**
 * The row pass of rows `row` … `row` + 3 (rows past the bottom are zeros whose outputs are dropped; lanes
 * never mix). Inputs are zero outside the row, as in the reference, which then adds 0: exact.
 */
void MomentBlur::RowPassFrom(long row) {
  const long span = kPadLeft + stride_ + kPadRight;
  float* const ta = transposed_;
  float* const tb = ta + 4 * span;
  // The reference's moments read only a: b is not transposed (its taps are never read).
  const int planes = set_ == MomentSet::kReference ? 1 : 2;
  for (int which = 0; which < planes; which++) {
    const float* plane = which == 0 ? a_ : b_;
    float* t = which == 0 ? ta : tb;
    for (long x = 0; x < stride_; x += 4) {
      V4 r[4];
      for (long i = 0; i < 4; i++) r[i] = row + i < height_ ? Load(plane + (row + i) * stride_ + x) : Splat(0.0f);
      Transpose(r[0], r[1], r[2], r[3]);
      for (long i = 0; i < 4; i++) Store(t + 4 * (kPadLeft + x + i), r[i]);
    }
    // Past the width the recursion reads zeros, not the planes' padding.
    for (long j = kPadLeft + width_; j < span; j++) Store(t + 4 * j, Splat(0.0f));
  }

  float* const out = row_out_;
  // Two moments per loop where the set has them (the register budget above); the grouping does not
  // change a moment's operations.
  switch (set_) {
    case MomentSet::kAll:
      RowRecursion<kMu1, kMu2>(k_, ta, tb, out, width_, stride_);
      RowRecursion<kSigma11, kSigma22>(k_, ta, tb, out, width_, stride_);
      RowRecursion<kSigma12>(k_, ta, tb, out, width_, stride_);
      break;
    case MomentSet::kReference:
      RowRecursion<kMu1, kSigma11>(k_, ta, tb, out, width_, stride_);
      break;
    case MomentSet::kDistorted:
      RowRecursion<kMu2, kSigma22>(k_, ta, tb, out, width_, stride_);
      RowRecursion<kSigma12>(k_, ta, tb, out, width_, stride_);
      break;
  }
  // Back to rows: entries past the width were never written and stay zero.
  const long rows = std::min<long>(4, height_ - row);
  for (int i = 0; i < count_; i++) {
    const int m = moments_[i];
    float* const ring = ring_ + m * kRingRows * stride_;
    for (long x = 0; x < stride_; x += 4) {
      const float* column = out + 4 * (m * stride_ + x);
      V4 c[4] = {Load(column), Load(column + 4), Load(column + 8), Load(column + 12)};
      Transpose(c[0], c[1], c[2], c[3]);
      for (long i = 0; i < rows; i++) Store(ring + ((row + i) % kRingRows) * stride_ + x, c[i]);
    }
  }
  computed_ = row + 4;
}

/**
 * Step n of the column pass over every column: per moment and resonator, y[n−1] and y[n−2] of each
 * column are two state rows; y[n] overwrites y[n−2] and the rows swap roles (flip_). A missing bottom
 * row is zeros; a missing top row is skipped, as in the reference.
 *
 * −d1·y[n−1] − y[n−2] is rounded once, as the reference's fused multiply-add rounds it: d1 ≈ −1.9, so the
 * two terms nearly cancel and a rounded product first leaves float noise in flat areas, which SSIM′
 * divides by C2. Rounded twice, the semi-transparent fixture pairs read 0.4–1.2 points below the reference
 * (their dark-background blend is nearly flat); rounded once, within 0.3 (docs/benchmarks.md). The row
 * pass rounds each operation: fusing it too took those pairs' mean |difference| from 0.10 to 0.07 for
 * ~30 % more CPU per call.
 */
template <bool kHasTop>
void MomentBlur::ColumnStep(long n) {
  const bool has_bottom = n + kN - 1 < height_;
  const int now = flip_ ? 1 : 0;
  for (int i = 0; i < count_; i++) {
    const int m = moments_[i];
    const float* const bottom = has_bottom ? RingRow(m, n + kN - 1) : zeros_;
    const float* const top = kHasTop ? RingRow(m, n - kN - 1) : nullptr;
    float* const state = state_ + m * 6 * stride_;
    float* const p1 = state + (0 + now) * stride_;
    float* const q1 = state + (1 - now) * stride_;
    float* const p3 = state + (2 + now) * stride_;
    float* const q3 = state + (3 - now) * stride_;
    float* const p5 = state + (4 + now) * stride_;
    float* const q5 = state + (5 - now) * stride_;
    float* const out = out_ + m * stride_;
    const V4 n1 = Splat(k_.n2[0]), n3 = Splat(k_.n2[1]), n5 = Splat(k_.n2[2]);
    const V4 d11 = Splat(-k_.d1[0]), d13 = Splat(-k_.d1[1]), d15 = Splat(-k_.d1[2]);
    for (long x = 0; x < stride_; x += 4) {
      const V4 sum = kHasTop ? Load(top + x) + Load(bottom + x) : Load(bottom + x);
      const V4 y1 = n1 * sum + MulSubRoundedOnce(d11, Load(p1 + x), Load(q1 + x));
      const V4 y3 = n3 * sum + MulSubRoundedOnce(d13, Load(p3 + x), Load(q3 + x));
      const V4 y5 = n5 * sum + MulSubRoundedOnce(d15, Load(p5 + x), Load(q5 + x));
      Store(q1 + x, y1);
      Store(q3 + x, y3);
      Store(q5 + x, y5);
      Store(out + x, y1 + (y3 + y5));
    }
  }
  flip_ = !flip_;
}

void MomentBlur::Next(const float* rows[kMoments]) {
  for (;;) {
    const long n = step_++;
    while (n + kN - 1 < height_ && computed_ <= n + kN - 1) RowPassFrom(computed_);
    if (n - kN - 1 >= 0)
      ColumnStep<true>(n);
    else
      ColumnStep<false>(n);
    if (n >= 0) {
      for (int i = 0; i < count_; i++) rows[moments_[i]] = out_ + moments_[i] * stride_;
      return;
    }
  }
}

}  // namespace ssimulacra2
