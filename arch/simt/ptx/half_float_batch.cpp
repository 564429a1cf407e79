#include "arch/simt/ptx/half_float_batch.h"

#include "arch/simt/ptx/half_float.h"
#include "sim/host_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LOOM_HALF_BATCH_F16C 1
#endif

namespace loom::simt {

void floats_to_halves_portable(const float* in, size_t n, uint16_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = float_to_half(in[i]);
}

#ifdef LOOM_HALF_BATCH_F16C
// vcvtps2ph with an explicit round-to-nearest-even (not MXCSR's mode) gives float_to_half's
// bits for every input: it rounds subnormal results rather than flushing them, overflows to
// infinity, and quiets a NaN keeping its payload's top ten bits (tests/test_half_float_batch.cpp
// checks all of these against the scalar version).
__attribute__((target("avx2,f16c"))) void floats_to_halves_f16c(const float* in, size_t n, uint16_t* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i halves = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), halves);
  }
  floats_to_halves_portable(in + i, n - i, out + i);
}
#else
void floats_to_halves_f16c(const float* in, size_t n, uint16_t* out) { floats_to_halves_portable(in, n, out); }
#endif

void floats_to_halves(const float* in, size_t n, uint16_t* out) {
  static const bool vector = host_has_avx2() && host_has_f16c();
  if (vector)
    floats_to_halves_f16c(in, n, out);
  else
    floats_to_halves_portable(in, n, out);
}

}  // namespace loom::simt
