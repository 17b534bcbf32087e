// The SSIMULACRA 2 blur, the C++ twin of src/processors/image/quality/recursive-gaussian.ts: the same
// row pass (blocks of four outputs, scalar steps at both ends) and column pass, with float32 rounding
// exactly where the TypeScript calls Math.fround or stores into a Float32Array, and double elsewhere.
#pragma once

#include <cstddef>

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

/** Blurs one width × height plane into dst; tmp is scratch of the same size. */
void BlurPlane(const BlurConstants& k, const float* src, float* dst, float* tmp, size_t width,
               size_t height);

}  // namespace ssimulacra2
