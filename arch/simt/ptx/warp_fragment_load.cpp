#include "arch/simt/ptx/warp_fragment_load.h"

#include <initializer_list>

#include "arch/simt/ptx/memory_access.h"
#include "sim/host_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LOOM_FRAGMENT_LOAD_AVX2 1
#endif

namespace loom::simt {

namespace {

constexpr int kTile = 16;

}  // namespace

template <class L>
void load_fragment_portable(const uint8_t* first, uint64_t pitch, bool columns, L* const* regs) {
  for (int row = 0; row < kTile; ++row)
    for (int r = 0; r < 8; ++r) {
      const uint64_t word = columns ? read_le<2>(first + 2 * r * pitch + 2 * row) |
                                          read_le<2>(first + (2 * r + 1) * pitch + 2 * row) << 16
                                    : read_le<4>(first + row * pitch + 4 * r);
      regs[r][row] = regs[r][row + kTile] = static_cast<L>(word);
    }
}

#ifdef LOOM_FRAGMENT_LOAD_AVX2
namespace {

#define LOOM_AVX2 __attribute__((target("avx2"), always_inline)) inline

// Lanes [at, at + 8) and [at + 16, at + 24) of `reg` (the repeat) from eight words.
template <class L>
LOOM_AVX2 void store8(L* reg, int at, __m256i words) {
  if constexpr (sizeof(L) == 4) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(reg + at), words);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(reg + at + kTile), words);
  } else {
    const __m256i low = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(words));
    const __m256i high = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(words, 1));
    for (const int lane : {at, at + kTile}) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(reg + lane), low);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(reg + lane + 4), high);
    }
  }
}

LOOM_AVX2 __m256i line(const uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

template <class L>
__attribute__((target("avx2"))) void fragment_avx2(const uint8_t* first, uint64_t pitch, bool columns, L* const* regs) {
  if (columns) {
    // Columns 2r and 2r + 1, 16 halves each: interleaved, halves 0-3 and 8-11 in `low`,
    // 4-7 and 12-15 in `high` (unpack works within 128-bit halves).
    for (int r = 0; r < 8; ++r) {
      const __m256i a = line(first + 2 * r * pitch), b = line(first + (2 * r + 1) * pitch);
      const __m256i low = _mm256_unpacklo_epi16(a, b), high = _mm256_unpackhi_epi16(a, b);
      store8(regs[r], 0, _mm256_permute2x128_si256(low, high, 0x20));
      store8(regs[r], 8, _mm256_permute2x128_si256(low, high, 0x31));
    }
    return;
  }
  // Rows: eight rows of eight words at a time, transposed so that register r gets word r of
  // each row.
  for (int rows = 0; rows < kTile; rows += 8) {
    __m256i v[8];
    for (int k = 0; k < 8; ++k) v[k] = line(first + static_cast<uint64_t>(rows + k) * pitch);
    __m256i t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
      t[k] = _mm256_unpacklo_epi32(v[k], v[k + 1]);      // words 0,1 | 4,5 of rows k, k+1
      t[k + 1] = _mm256_unpackhi_epi32(v[k], v[k + 1]);  // words 2,3 | 6,7
    }
    for (int k = 0; k < 8; k += 4) {
      u[k] = _mm256_unpacklo_epi64(t[k], t[k + 2]);          // word 0 | 4 of rows k..k+3
      u[k + 1] = _mm256_unpackhi_epi64(t[k], t[k + 2]);      // word 1 | 5
      u[k + 2] = _mm256_unpacklo_epi64(t[k + 1], t[k + 3]);  // word 2 | 6
      u[k + 3] = _mm256_unpackhi_epi64(t[k + 1], t[k + 3]);  // word 3 | 7
    }
    for (int r = 0; r < 4; ++r) {
      store8(regs[r], rows, _mm256_permute2x128_si256(u[r], u[r + 4], 0x20));
      store8(regs[r + 4], rows, _mm256_permute2x128_si256(u[r], u[r + 4], 0x31));
    }
  }
}
#undef LOOM_AVX2

}  // namespace

template <class L>
LoadFragmentFn<L> load_fragment_avx2() {
  return host_has_avx2() ? &fragment_avx2<L> : nullptr;
}
#else
template <class L>
LoadFragmentFn<L> load_fragment_avx2() {
  return nullptr;
}
#endif

template <class L>
LoadFragmentFn<L> load_fragment() {
  static const LoadFragmentFn<L> avx2 = load_fragment_avx2<L>();
  return avx2 ? avx2 : &load_fragment_portable<L>;
}

template void load_fragment_portable<uint64_t>(const uint8_t*, uint64_t, bool, uint64_t* const*);
template void load_fragment_portable<uint32_t>(const uint8_t*, uint64_t, bool, uint32_t* const*);
template LoadFragmentFn<uint64_t> load_fragment_avx2<uint64_t>();
template LoadFragmentFn<uint32_t> load_fragment_avx2<uint32_t>();
template LoadFragmentFn<uint64_t> load_fragment<uint64_t>();
template LoadFragmentFn<uint32_t> load_fragment<uint32_t>();

}  // namespace loom::simt
