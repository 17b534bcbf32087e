// The SSIMULACRA 2 blur, the C++ twin of src/processors/shared/metric/recursive-gaussian.ts: the same
// row pass (blocks of four outputs, scalar steps at both ends) and column pass, with float32 rounding
// exactly where the TypeScript calls Math.fround or stores into a Float32Array, and double elsewhere.
#pragma once

#include <cstddef>
#include <vector>

namespace ssimulacra2 {

/**
 * The filter's float32-valued constants, computed by the TypeScript module (its Math.cos/sin/tan/exp are
 * V8's, which differ from glibc's in the last bit) and handed over as they are: per resonator k,
 * mulIn/mulPrev/mulPrev2 at [4k + lane], n2 and d1 at [k].
 */
struct BlurConstants {
  double mul_in[12];
  double mul_prev[12];
  double mul_prev2[12];
  double n2[3];
  double d1[3];
};

/** Number of doubles in the flat array the TypeScript side passes (order of the fields above). */
constexpr size_t kBlurConstantCount = 42;

BlurConstants BlurConstantsFrom(const double* flat);

/**
 * One plane blurred row by row, top to bottom. The row pass runs at most four rows ahead into a ring of
 * kRingRows rows and the column pass keeps its state per column, so a blurred plane costs ~24 rows of
 * memory instead of the two whole planes (output and scratch) a plane-at-a-time blur needs: the scoring
 * mosaic's five blurred planes per channel were ~95 MB at 2.4 MP, outside the JS heap. Every output is
 * the same arithmetic as the whole-plane passes (rows are independent in the row pass; the column pass
 * visits the rows in the same order), so the score stays bit-identical to the TypeScript.
 *
 * The input is plane `a`, or the float32 product a·b when `b` is given (a·a when b == a).
 */
class BlurStream {
 public:
  BlurStream(const BlurConstants& k, const float* a, const float* b, size_t width, size_t height);

  /** The next blurred row (rows 0 … height − 1 in order); valid until the next call. */
  const float* Next();

 private:
  static constexpr long kRingRows = 16;  // a power of two ≥ 2N + 1 + 3 (rows the column pass spans + lookahead)

  const float* RowPassOutput(long row);
  void RowPassFrom(long row);

  const BlurConstants& k_;
  const float* a_;
  const float* b_;
  long width_;
  long height_;
  long step_;      // the column pass's next n
  long computed_;  // rows of the row pass done
  std::vector<float> ring_, input_, out_, zeros_, p1_, p3_, p5_, q1_, q3_, q5_;
};

}  // namespace ssimulacra2
