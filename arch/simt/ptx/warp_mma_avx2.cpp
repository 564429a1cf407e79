#include "arch/simt/ptx/warp_mma.h"

#include "sim/host_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LOOM_WARP_MMA_AVX2 1
#endif

namespace loom::simt {

#ifdef LOOM_WARP_MMA_AVX2
namespace {

#define LOOM_AVX2 __attribute__((target("avx2,f16c"), always_inline)) inline

// The low 32 bits of lanes [0, 8) of `lanes`, in order.
LOOM_AVX2 __m256i low_words(const uint32_t* lanes) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes)); }
LOOM_AVX2 __m256i low_words(const uint64_t* lanes) {
  const __m256 first = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes)));
  const __m256 second = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes + 4)));
  // Dwords 0 and 2 of each 128-bit half: [l0 l1 l4 l5 | l2 l3 l6 l7]; then the 64-bit pairs in order.
  return _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(first, second, 0x88)), 0xd8);
}

// The low and the high 16 bits of eight 32-bit words (a fragment register's two columns
// for eight rows), each as eight fp32. bf16 is the top half of its fp32. fp16 goes through
// F16C's vcvtph2ps, exact for every value but a signalling NaN, which it quiets; no result
// changes, for each input is only ever multiplied, which quiets it too, and an x86 multiply
// returns its first NaN operand, signalling or quiet (warp_mma.h).
template <bool Bf16>
LOOM_AVX2 void widen_pairs(__m256i words, __m256& low, __m256& high) {
  if constexpr (Bf16) {
    low = _mm256_castsi256_ps(_mm256_slli_epi32(words, 16));
    high = _mm256_castsi256_ps(_mm256_and_si256(words, _mm256_set1_epi32(static_cast<int>(0xffff0000u))));
  } else {
    // Each 128-bit half to [its four low halves | its four high halves], then the halves'
    // 64-bit parts to [eight low halves | eight high halves].
    const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,  //
                                          0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    const __m256i split = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(words, pick), 0xd8);
    low = _mm256_cvtph_ps(_mm256_castsi256_si128(split));
    high = _mm256_cvtph_ps(_mm256_extracti128_si256(split, 1));
  }
}

// An A or B fragment (lanes 0-15: row = lane, register r holds columns 2r and 2r+1) as fp32
// columns: out[column][row].
template <bool Bf16, class L>
LOOM_AVX2 void widen_columns(const L* const* regs, float (&out)[16][16]) {
  for (int r = 0; r < 8; ++r)
    for (int rows = 0; rows < 16; rows += 8) {
      __m256 low, high;
      widen_pairs<Bf16>(low_words(regs[r] + rows), low, high);
      _mm256_store_ps(&out[2 * r][rows], low);
      _mm256_store_ps(&out[2 * r + 1][rows], high);
    }
}

// Even and odd dwords of the sixteen in (x, y), each in order.
LOOM_AVX2 void split_even_odd(__m256 x, __m256 y, __m256& even, __m256& odd) {
  even = _mm256_castsi256_ps(_mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(x, y, 0x88)), 0xd8));
  odd = _mm256_castsi256_ps(_mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(x, y, 0xdd)), 0xd8));
}

// L: the registers' lanes, uint64_t (wide, zero-extended) or uint32_t (narrow).
template <bool Bf16, class L>
__attribute__((target("avx2,f16c"))) void mma_f32(const L* const* a, const L* const* b, const L* const* c, L* const* d) {
  alignas(32) float a_columns[16][16];  // [k][m]
  alignas(32) float b_columns[16][16];  // [n][k]
  alignas(32) float acc[16][16];        // [n][m]
  widen_columns<Bf16, L>(a, a_columns);
  widen_columns<Bf16, L>(b, b_columns);
  // C element (m, n) is lane 2m + n/8, register n % 8: register k's even lanes hold column k,
  // its odd lanes column 8 + k.
  for (int k = 0; k < 8; ++k)
    for (int rows = 0; rows < 16; rows += 8) {
      __m256 even, odd;
      split_even_odd(_mm256_castsi256_ps(low_words(c[k] + 2 * rows)), _mm256_castsi256_ps(low_words(c[k] + 2 * rows + 8)),
                     even, odd);
      _mm256_store_ps(&acc[k][rows], even);
      _mm256_store_ps(&acc[8 + k][rows], odd);
    }
  // Eight columns at a time: each column's sum still adds its products in k order (the same
  // bits), and the eight sums' additions are independent, so they overlap instead of each
  // waiting on its own chain of sixteen (warp_mma_avx512.cpp interleaves all sixteen).
  constexpr int kColumns = 8;
  for (int rows = 0; rows < 16; rows += 8)
    for (int n0 = 0; n0 < 16; n0 += kColumns) {
      __m256 sum[kColumns];
      for (int j = 0; j < kColumns; ++j) sum[j] = _mm256_load_ps(&acc[n0 + j][rows]);
      for (int k = 0; k < 16; ++k) {
        const __m256 a_k = _mm256_load_ps(&a_columns[k][rows]);
        for (int j = 0; j < kColumns; ++j)
          sum[j] = _mm256_add_ps(sum[j], _mm256_mul_ps(a_k, _mm256_broadcast_ss(&b_columns[n0 + j][k])));
      }
      for (int j = 0; j < kColumns; ++j) _mm256_store_ps(&acc[n0 + j][rows], sum[j]);
    }
  // Back to lanes: register k, lanes 2m and 2m + 1 hold (m, k) and (m, 8 + k), zero-extended.
  for (int k = 0; k < 8; ++k)
    for (int rows = 0; rows < 16; rows += 8) {
      const __m256 x = _mm256_load_ps(&acc[k][rows]), y = _mm256_load_ps(&acc[8 + k][rows]);
      const __m256i low = _mm256_castps_si256(_mm256_unpacklo_ps(x, y));   // m0 m1 | m4 m5, interleaved
      const __m256i high = _mm256_castps_si256(_mm256_unpackhi_ps(x, y));  // m2 m3 | m6 m7
      auto* out = reinterpret_cast<__m256i*>(d[k] + 2 * rows);
      if constexpr (sizeof(L) == 4) {  // lanes 2m, 2m + 1 for m = rows .. rows + 7, in order
        _mm256_storeu_si256(out, _mm256_permute2x128_si256(low, high, 0x20));
        _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(low, high, 0x31));
      } else {
        _mm256_storeu_si256(out, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(low)));
        _mm256_storeu_si256(out + 1, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(high)));
        _mm256_storeu_si256(out + 2, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(low, 1)));
        _mm256_storeu_si256(out + 3, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(high, 1)));
      }
    }
}

#undef LOOM_AVX2

}  // namespace

template <class L>
WholeWarpMmaFn<L> whole_warp_mma_f32_avx2(bool bf16) {
  static const bool vector = host_has_avx2() && host_has_f16c();
  if (!vector) return nullptr;
  return bf16 ? &mma_f32<true, L> : &mma_f32<false, L>;
}
#else
template <class L>
WholeWarpMmaFn<L> whole_warp_mma_f32_avx2(bool) {
  return nullptr;
}
#endif
template WholeWarpMmaFn<uint64_t> whole_warp_mma_f32_avx2<uint64_t>(bool);
template WholeWarpMmaFn<uint32_t> whole_warp_mma_f32_avx2<uint32_t>(bool);

}  // namespace loom::simt
