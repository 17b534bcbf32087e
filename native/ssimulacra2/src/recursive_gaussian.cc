// Row and column passes of the recursive Gaussian, statement for statement as recursive-gaussian.ts
// (which explains the filter and why its float32 rounding is part of the score). F() is Math.fround.
#include "recursive_gaussian.h"

#include <algorithm>
#include <vector>

namespace ssimulacra2 {
namespace {

constexpr long kN = 5;  // N of the paper for σ = 1.5, as in the TypeScript

inline double F(double x) { return static_cast<double>(static_cast<float>(x)); }

/** Row-pass resonator states (prev at [k], prev2 at [3 + k]) and the step's lane outputs. */
struct RowState {
  double state[6];
  double lanes[12];
};

double RowStep(const BlurConstants& c, RowState& st, const float* row, long width, long n) {
  const long left = n - kN - 1;
  const long right = n + kN - 1;
  const double sum = F((left >= 0 ? static_cast<double>(row[left]) : 0.0) +
                       (right < width ? static_cast<double>(row[right]) : 0.0));
  for (int k = 0; k < 3; k++) {
    const double prev = st.state[k];
    const double prev2 = st.state[3 + k];
    double v = F(sum * c.mul_in[4 * k]);
    v = F(c.mul_prev2[4 * k] * prev2 + v);
    v = F(c.mul_prev[4 * k] * prev + v);
    st.state[3 + k] = prev;
    st.state[k] = v;
    st.lanes[k] = v;
  }
  return F(st.lanes[0] + F(st.lanes[1] + st.lanes[2]));
}

void RowPass(const BlurConstants& c, const float* src, float* dst, long width, long height) {
  const long end = width - kN + 1 - 3;
  RowState st;
  for (long y = 0; y < height; y++) {
    const float* row = src + y * width;
    float* out = dst + y * width;
    std::fill(st.state, st.state + 6, 0.0);
    long n = -kN + 1;
    for (; n < std::min<long>(8, width); n++) {
      const double v = RowStep(c, st, row, width, n);
      if (n >= 0) out[n] = static_cast<float>(v);
    }
    for (; n < end; n += 4) {
      const float* base = row + n - kN - 1;
      const double s0 = F(static_cast<double>(base[0]) + base[2 * kN]);
      const double s1 = F(static_cast<double>(base[1]) + base[1 + 2 * kN]);
      const double s2 = F(static_cast<double>(base[2]) + base[2 + 2 * kN]);
      const double s3 = F(static_cast<double>(base[3]) + base[3 + 2 * kN]);
      for (int k = 0; k < 3; k++) {
        const int i = 4 * k;
        const double prev = st.state[k];
        const double prev2 = st.state[3 + k];
        const double m0 = c.mul_in[i];
        const double m1 = c.mul_in[i + 1];
        const double m2 = c.mul_in[i + 2];
        const double m3 = c.mul_in[i + 3];
        double o0 = F(s0 * m0);
        double o1 = F(m0 * s1 + F(s0 * m1));
        double o2 = F(m0 * s2 + F(m1 * s1 + F(s0 * m2)));
        double o3 = F(m0 * s3 + F(m1 * s2 + F(m2 * s1 + F(s0 * m3))));
        o0 = F(c.mul_prev[i] * prev + F(c.mul_prev2[i] * prev2 + o0));
        o1 = F(c.mul_prev[i + 1] * prev + F(c.mul_prev2[i + 1] * prev2 + o1));
        o2 = F(c.mul_prev[i + 2] * prev + F(c.mul_prev2[i + 2] * prev2 + o2));
        o3 = F(c.mul_prev[i + 3] * prev + F(c.mul_prev2[i + 3] * prev2 + o3));
        st.lanes[i] = o0;
        st.lanes[i + 1] = o1;
        st.lanes[i + 2] = o2;
        st.lanes[i + 3] = o3;
        st.state[3 + k] = o2;
        st.state[k] = o3;
      }
      for (int lane = 0; lane < 4; lane++)
        out[n + lane] = static_cast<float>(F(st.lanes[lane] + F(st.lanes[4 + lane] + st.lanes[8 + lane])));
    }
    for (; n < width; n++) out[n] = static_cast<float>(RowStep(c, st, row, width, n));
  }
}

void ColumnPass(const BlurConstants& c, const float* src, float* dst, long width, long height) {
  const double n1 = c.n2[0], n3 = c.n2[1], n5 = c.n2[2];
  const double d11 = c.d1[0], d13 = c.d1[1], d15 = c.d1[2];
  // Previous (p) and second-previous (q) outputs of each resonator, per column, stored as float32.
  std::vector<float> p1(width), p3(width), p5(width), q1(width), q3(width), q5(width);
  for (long n = -kN + 1; n < height; n++) {
    const bool has_top = n - kN - 1 >= 0;
    const bool has_bottom = n + kN - 1 < height;
    const float* top = has_top ? src + (n - kN - 1) * width : nullptr;
    const float* bottom = has_bottom ? src + (n + kN - 1) * width : nullptr;
    float* out = n >= 0 ? dst + n * width : nullptr;
    for (long x = 0; x < width; x++) {
      const double b = has_bottom ? static_cast<double>(bottom[x]) : 0.0;
      const double sum = has_top ? F(static_cast<double>(top[x]) + b) : b;
      const double y1 = F(n1 * sum + F(-d11 * p1[x] - q1[x]));
      const double y3 = F(n3 * sum + F(-d13 * p3[x] - q3[x]));
      const double y5 = F(n5 * sum + F(-d15 * p5[x] - q5[x]));
      q1[x] = p1[x];
      q3[x] = p3[x];
      q5[x] = p5[x];
      p1[x] = static_cast<float>(y1);
      p3[x] = static_cast<float>(y3);
      p5[x] = static_cast<float>(y5);
      if (out != nullptr) out[x] = static_cast<float>(y1 + F(y3 + y5));
    }
  }
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

void BlurPlane(const BlurConstants& k, const float* src, float* dst, float* tmp, size_t width,
               size_t height) {
  RowPass(k, src, tmp, static_cast<long>(width), static_cast<long>(height));
  ColumnPass(k, tmp, dst, static_cast<long>(width), static_cast<long>(height));
}

}  // namespace ssimulacra2
