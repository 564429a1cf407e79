#include "arch/simt/timing/way_scan.h"

#include <bit>

#include "sim/host_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LOOM_WAY_SCAN_AVX2 1
#endif

namespace loom::simt {

int find_print_portable(const uint16_t* prints, int from, int ways, uint16_t print) {
  for (int w = from; w < ways; ++w)
    if (prints[w] == print) return w;
  return ways;
}

int oldest_way_portable(const uint32_t* stamps, int ways) {
  int oldest = 0;
  for (int w = 1; w < ways; ++w)
    if (stamps[w] < stamps[oldest]) oldest = w;
  return oldest;
}

#ifdef LOOM_WAY_SCAN_AVX2
__attribute__((target("avx2"))) int find_print_avx2(const uint16_t* prints, int from, int ways, uint16_t print) {
  const __m256i key = _mm256_set1_epi16(static_cast<int16_t>(print));
  for (int group = from / kWayGroup * kWayGroup; group < ways; group += kWayGroup) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(prints + group));
    // Two bits per way; drop the ways before `from` and from `ways` on.
    uint32_t hits = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi16(v, key)));
    if (from > group) hits &= ~0u << (2 * (from - group));
    if (ways - group < kWayGroup) hits &= (1u << (2 * (ways - group))) - 1;
    if (hits) return group + std::countr_zero(hits) / 2;
  }
  return ways;
}

__attribute__((target("avx2"))) int oldest_way_avx2(const uint32_t* stamps, int ways) {
  // The least stamp (ways past `ways` count as the largest), then its first position.
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i least = _mm256_set1_epi32(-1);
  for (int group = 0; group < ways; group += 8) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(stamps + group));
    const __m256i outside = _mm256_cmpgt_epi32(_mm256_add_epi32(lanes, _mm256_set1_epi32(group)),
                                               _mm256_set1_epi32(ways - 1));
    v = _mm256_or_si256(v, outside);
    least = _mm256_min_epu32(least, v);
  }
  __m128i m = _mm_min_epu32(_mm256_castsi256_si128(least), _mm256_extracti128_si256(least, 1));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0x4e));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0xb1));
  const __m256i target = _mm256_broadcastd_epi32(m);
  for (int group = 0;; group += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(stamps + group));
    const auto hits = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, target))));
    if (hits) return group + std::countr_zero(hits);  // the least is inside [0, ways): found before the padding
  }
}
#else
int find_print_avx2(const uint16_t* prints, int from, int ways, uint16_t print) {
  return find_print_portable(prints, from, ways, print);
}
int oldest_way_avx2(const uint32_t* stamps, int ways) { return oldest_way_portable(stamps, ways); }
#endif

// Chosen once, so each call is one indirect jump and no check.
const FindPrintFn find_print = host_has_avx2() ? &find_print_avx2 : &find_print_portable;
const OldestWayFn oldest_way = host_has_avx2() ? &oldest_way_avx2 : &oldest_way_portable;

}  // namespace loom::simt
