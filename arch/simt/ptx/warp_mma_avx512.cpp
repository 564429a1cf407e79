// The whole-warp MMA of warp_mma.h in AVX-512: sixteen rows of a D column per
// instruction, so that D's sixteen column sums stay in registers for the whole product and
// each B element is broadcast from memory by the multiply itself. Same results as the AVX2
// and portable versions (a product rounded, then added, k in order), so the same bits; this
// file is built with -ffp-contract=off (CMakeLists.txt), so that the compiler fuses nothing
// on its own, and the tests compare every bit. The fp16 product alone is fused on purpose:
// the product of two fp16 values is exact in fp32 (11-bit significands make at most 22
// bits, and its exponent stays inside fp32's normal range), so rounding it first changes
// nothing, and a fused multiply-add took about a fifth less time per MMA in the simulator
// (docs/performance.md, forty-sixth round). A bf16 product can overflow or underflow fp32,
// so there it stays a multiply, then an add.
#include "arch/simt/ptx/warp_mma.h"

#include "sim/host_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LOOM_WARP_MMA_AVX512 1
#endif

namespace loom::simt {

#ifdef LOOM_WARP_MMA_AVX512
// GCC 12's AVX-512 intrinsics start their results from _mm512_undefined_*, which it then
// warns is uninitialized (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
namespace {

#define LOOM_AVX512 __attribute__((target("avx512f"), always_inline)) inline

// The low 32 bits of lanes [0, 16) of `lanes`, in order.
LOOM_AVX512 __m512i low_words(const uint32_t* lanes) { return _mm512_loadu_si512(lanes); }
LOOM_AVX512 __m512i low_words(const uint64_t* lanes) {
  const __m256i first = _mm512_cvtepi64_epi32(_mm512_loadu_si512(lanes));
  const __m256i second = _mm512_cvtepi64_epi32(_mm512_loadu_si512(lanes + 8));
  return _mm512_inserti64x4(_mm512_castsi256_si512(first), second, 1);
}

// The low and the high 16 bits of sixteen 32-bit words (a fragment register's two columns),
// each as sixteen fp32: bf16 is the top half of its fp32; fp16 goes through vcvtph2ps, as
// in the AVX2 version (warp_mma_avx2.cpp says why a quieted signalling NaN changes nothing).
template <bool Bf16>
LOOM_AVX512 void widen_pairs(__m512i words, __m512& low, __m512& high) {
  if constexpr (Bf16) {
    low = _mm512_castsi512_ps(_mm512_slli_epi32(words, 16));
    high = _mm512_castsi512_ps(_mm512_and_si512(words, _mm512_set1_epi32(static_cast<int>(0xffff0000u))));
  } else {
    low = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(words));
    high = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(words, 16)));
  }
}

// L: the registers' lanes, uint64_t (wide, zero-extended) or uint32_t (narrow).
template <bool Bf16, class L>
__attribute__((target("avx512f"))) void mma_f32(const L* const* a, const L* const* b, const L* const* c, L* const* d) {
  // A (lanes 0-15: row m = lane, register r holds columns 2r and 2r+1) as its sixteen
  // columns, rows 0-15 each; B the same way, as b_columns[n][k].
  __m512 a_columns[16];
  alignas(64) float b_columns[16][16];
  for (int r = 0; r < 8; ++r) {
    widen_pairs<Bf16>(low_words(a[r]), a_columns[2 * r], a_columns[2 * r + 1]);
    __m512 low, high;
    widen_pairs<Bf16>(low_words(b[r]), low, high);
    _mm512_store_ps(b_columns[2 * r], low);
    _mm512_store_ps(b_columns[2 * r + 1], high);
  }
  // C element (m, n) is lane 2m + n/8, register n % 8: register k's even lanes hold
  // column k, its odd lanes column 8 + k. Every source is read before d is written.
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  __m512 acc[16];  // [n]: rows 0-15
  for (int k = 0; k < 8; ++k) {
    const __m512 first = _mm512_castsi512_ps(low_words(c[k])), second = _mm512_castsi512_ps(low_words(c[k] + 16));
    acc[k] = _mm512_permutex2var_ps(first, even, second);
    acc[8 + k] = _mm512_permutex2var_ps(first, odd, second);
  }
  // k outermost: each column's sum still adds its products in k order (the same bits), and
  // the sixteen columns' additions are independent, so they overlap instead of each column
  // waiting on its own chain of sixteen; the sums stay in registers and A's columns are
  // read one at a time. fp16 products are exact, so fusing them changes no bit (above).
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 16; ++n)
      if constexpr (Bf16)
        acc[n] = _mm512_add_ps(acc[n], _mm512_mul_ps(a_columns[k], _mm512_set1_ps(b_columns[n][k])));
      else
        acc[n] = _mm512_fmadd_ps(a_columns[k], _mm512_set1_ps(b_columns[n][k]), acc[n]);
  // Back to lanes: register k, lanes 2m and 2m + 1 hold (m, k) and (m, 8 + k).
  const __m512i first_half = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i second_half = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  for (int k = 0; k < 8; ++k) {
    const __m512i lanes_0_15 = _mm512_castps_si512(_mm512_permutex2var_ps(acc[k], first_half, acc[8 + k]));
    const __m512i lanes_16_31 = _mm512_castps_si512(_mm512_permutex2var_ps(acc[k], second_half, acc[8 + k]));
    if constexpr (sizeof(L) == 4) {
      _mm512_storeu_si512(d[k], lanes_0_15);
      _mm512_storeu_si512(d[k] + 16, lanes_16_31);
    } else {  // zero-extended to 64 bits
      _mm512_storeu_si512(d[k], _mm512_cvtepu32_epi64(_mm512_castsi512_si256(lanes_0_15)));
      _mm512_storeu_si512(d[k] + 8, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(lanes_0_15, 1)));
      _mm512_storeu_si512(d[k] + 16, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(lanes_16_31)));
      _mm512_storeu_si512(d[k] + 24, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(lanes_16_31, 1)));
    }
  }
}

#undef LOOM_AVX512

}  // namespace
#pragma GCC diagnostic pop

template <class L>
WholeWarpMmaFn<L> whole_warp_mma_f32_avx512(bool bf16) {
  static const bool vector = host_has_avx512f();
  if (!vector) return nullptr;
  return bf16 ? &mma_f32<true, L> : &mma_f32<false, L>;
}
#else
template <class L>
WholeWarpMmaFn<L> whole_warp_mma_f32_avx512(bool) {
  return nullptr;
}
#endif
template WholeWarpMmaFn<uint64_t> whole_warp_mma_f32_avx512<uint64_t>(bool);
template WholeWarpMmaFn<uint32_t> whole_warp_mma_f32_avx512<uint32_t>(bool);

}  // namespace loom::simt
