// Row and column passes of the recursive Gaussian, statement for statement as recursive-gaussian.ts
// (which explains the filter and why its float32 rounding is part of the score). F() is Math.fround.
#include "recursive_gaussian.h"

#include <algorithm>
#include <vector>

namespace ssimulacra2 {
namespace {

constexpr long kN = 5;  // N of the paper for σ = 1.5, as in the TypeScript

inline double F(double x) { return static_cast<double>(static_cast<float>(x)); }

/**
 * The row pass on R consecutive rows at once. Each row's arithmetic is exactly the TypeScript's (rows are
 * independent); interleaving them gives the CPU R independent dependency chains instead of one, and the
 * compiler lanes to vectorise. With 4 rows a whole scoring used 7–13 % less CPU on the pairs of
 * bench/metric/native-cost.ts (433 → 404 ms/MP opaque, 869 → 755 ms/MP alpha, a loaded 2-core machine).
 */
template <int R>
void RowPassRows(const BlurConstants& c, const float* src, float* dst, long width) {
  double prev[3][R] = {};
  double prev2[3][R] = {};
  double lanes[12][R];
  const long end = width - kN + 1 - 3;
  // One output at n for every row: the scalar form the reference uses at both ends of a row.
  auto step = [&](long n) {
    const long left = n - kN - 1;
    const long right = n + kN - 1;
    double sum[R];
    for (int r = 0; r < R; r++)
      sum[r] = F((left >= 0 ? static_cast<double>(src[r * width + left]) : 0.0) +
                 (right < width ? static_cast<double>(src[r * width + right]) : 0.0));
    for (int k = 0; k < 3; k++) {
      for (int r = 0; r < R; r++) {
        double v = F(sum[r] * c.mul_in[4 * k]);
        v = F(c.mul_prev2[4 * k] * prev2[k][r] + v);
        v = F(c.mul_prev[4 * k] * prev[k][r] + v);
        prev2[k][r] = prev[k][r];
        prev[k][r] = v;
        lanes[k][r] = v;
      }
    }
    if (n >= 0)
      for (int r = 0; r < R; r++)
        dst[r * width + n] = static_cast<float>(F(lanes[0][r] + F(lanes[1][r] + lanes[2][r])));
  };
  long n = -kN + 1;
  for (; n < std::min<long>(8, width); n++) step(n);
  for (; n < end; n += 4) {
    double s[4][R];
    for (int j = 0; j < 4; j++)
      for (int r = 0; r < R; r++) {
        const float* base = src + r * width + n - kN - 1;
        s[j][r] = F(static_cast<double>(base[j]) + base[j + 2 * kN]);
      }
    for (int k = 0; k < 3; k++) {
      const int i = 4 * k;
      const double m0 = c.mul_in[i];
      const double m1 = c.mul_in[i + 1];
      const double m2 = c.mul_in[i + 2];
      const double m3 = c.mul_in[i + 3];
      for (int r = 0; r < R; r++) {
        const double p = prev[k][r];
        const double pp = prev2[k][r];
        double o0 = F(s[0][r] * m0);
        double o1 = F(m0 * s[1][r] + F(s[0][r] * m1));
        double o2 = F(m0 * s[2][r] + F(m1 * s[1][r] + F(s[0][r] * m2)));
        double o3 = F(m0 * s[3][r] + F(m1 * s[2][r] + F(m2 * s[1][r] + F(s[0][r] * m3))));
        o0 = F(c.mul_prev[i] * p + F(c.mul_prev2[i] * pp + o0));
        o1 = F(c.mul_prev[i + 1] * p + F(c.mul_prev2[i + 1] * pp + o1));
        o2 = F(c.mul_prev[i + 2] * p + F(c.mul_prev2[i + 2] * pp + o2));
        o3 = F(c.mul_prev[i + 3] * p + F(c.mul_prev2[i + 3] * pp + o3));
        lanes[i][r] = o0;
        lanes[i + 1][r] = o1;
        lanes[i + 2][r] = o2;
        lanes[i + 3][r] = o3;
        prev2[k][r] = o2;
        prev[k][r] = o3;
      }
    }
    for (int lane = 0; lane < 4; lane++)
      for (int r = 0; r < R; r++)
        dst[r * width + n + lane] =
            static_cast<float>(F(lanes[lane][r] + F(lanes[4 + lane][r] + lanes[8 + lane][r])));
  }
  for (; n < width; n++) step(n);
}

}  // namespace

BlurConstants BlurConstantsFrom(const double* flat) {
  BlurConstants c;
  std::copy(flat, flat + 12, c.mul_in);
  std::copy(flat + 12, flat + 24, c.mul_prev);
  std::copy(flat + 24, flat + 36, c.mul_prev2);
  std::copy(flat + 36, flat + 39, c.n2);
  std::copy(flat + 39, flat + 42, c.d1);
  return c;
}

BlurStream::BlurStream(const BlurConstants& k, const float* a, const float* b, size_t width, size_t height)
    : k_(k),
      a_(a),
      b_(b),
      width_(static_cast<long>(width)),
      height_(static_cast<long>(height)),
      step_(-kN + 1),
      computed_(0),
      ring_(kRingRows * width),
      input_(b == nullptr ? 0 : 4 * width),
      out_(width),
      zeros_(width),
      p1_(width),
      p3_(width),
      p5_(width),
      q1_(width),
      q3_(width),
      q5_(width) {}

/**
 * The row pass from `row` on: four rows at once while four remain (as the whole-plane pass grouped them,
 * from row 0), then one by one. A group starts on a multiple of 4, so its rows are adjacent in the ring.
 */
void BlurStream::RowPassFrom(long row) {
  const long rows = row + 4 <= height_ ? 4 : 1;
  const float* src = a_ + row * width_;
  if (b_ != nullptr) {
    const float* b = b_ + row * width_;
    const long n = rows * width_;
    for (long i = 0; i < n; i++) input_[i] = static_cast<float>(static_cast<double>(src[i]) * b[i]);
    src = input_.data();
  }
  float* dst = ring_.data() + (row % kRingRows) * width_;
  if (rows == 4)
    RowPassRows<4>(k_, src, dst, width_);
  else
    RowPassRows<1>(k_, src, dst, width_);
  computed_ = row + rows;
}

const float* BlurStream::RowPassOutput(long row) {
  while (computed_ <= row) RowPassFrom(computed_);
  return ring_.data() + (row % kRingRows) * width_;
}

/**
 * One step n of the column pass over every column: previous (p) and second-previous (q) outputs of each
 * resonator, per column, stored as float32. A missing bottom row is a row of zeros (0.0, as the
 * reference adds); a missing top row is its own instance, which skips the add as the reference does.
 * Distinct buffers (restrict) and no branch inside: the compiler runs the columns in vector lanes, each
 * lane the same scalar arithmetic.
 */
template <bool kHasTop>
static void ColumnStep(const BlurConstants& k, const float* __restrict top, const float* __restrict bottom,
                float* __restrict p1, float* __restrict p3, float* __restrict p5, float* __restrict q1,
                float* __restrict q3, float* __restrict q5, float* __restrict out, long width) {
  const double n1 = k.n2[0], n3 = k.n2[1], n5 = k.n2[2];
  const double d11 = k.d1[0], d13 = k.d1[1], d15 = k.d1[2];
  for (long x = 0; x < width; x++) {
    const double b = static_cast<double>(bottom[x]);
    const double sum = kHasTop ? F(static_cast<double>(top[x]) + b) : b;
    const double y1 = F(n1 * sum + F(-d11 * p1[x] - q1[x]));
    const double y3 = F(n3 * sum + F(-d13 * p3[x] - q3[x]));
    const double y5 = F(n5 * sum + F(-d15 * p5[x] - q5[x]));
    q1[x] = p1[x];
    q3[x] = p3[x];
    q5[x] = p5[x];
    p1[x] = static_cast<float>(y1);
    p3[x] = static_cast<float>(y3);
    p5[x] = static_cast<float>(y5);
    out[x] = static_cast<float>(y1 + F(y3 + y5));
  }
}

const float* BlurStream::Next() {
  for (;;) {
    const long n = step_++;
    const float* bottom = n + kN - 1 < height_ ? RowPassOutput(n + kN - 1) : zeros_.data();
    float* out = out_.data();
    if (n - kN - 1 >= 0) {
      const float* top = ring_.data() + ((n - kN - 1) % kRingRows) * width_;
      ColumnStep<true>(k_, top, bottom, p1_.data(), p3_.data(), p5_.data(), q1_.data(), q3_.data(), q5_.data(),
                       out, width_);
    } else {
      ColumnStep<false>(k_, nullptr, bottom, p1_.data(), p3_.data(), p5_.data(), q1_.data(), q3_.data(),
                        q5_.data(), out, width_);
    }
    if (n >= 0) return out;
  }
}

}  // namespace ssimulacra2
