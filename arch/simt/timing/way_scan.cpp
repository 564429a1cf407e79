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
#else
int find_print_avx2(const uint16_t* prints, int from, int ways, uint16_t print) {
  return find_print_portable(prints, from, ways, print);
}
#endif

// Chosen once, so a call is one indirect jump and no check.
const FindPrintFn find_print = host_has_avx2() ? &find_print_avx2 : &find_print_portable;

}  // namespace loom::simt
