#include "arch/simt/timing/way_scan.h"

#include <algorithm>
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

namespace {

// Asks the host for the state of way `found` (or the victim's, where the key is absent).
inline void hint_answer(const WayHints& hints, int found, int ways) {
  const int w = found < ways ? found : hints.victim;
  if (w < 0 || !hints.lines) return;
  __builtin_prefetch(hints.lines + static_cast<size_t>(w) * hints.line_bytes, 1);
  __builtin_prefetch(hints.links + static_cast<size_t>(w) * hints.link_bytes, 1);
}

}  // namespace

void find_prints_portable(const uint16_t* prints, int ways, const uint16_t* keys, int n, int* out,
                          const WayHints& hints) {
  for (int i = 0; i < n; ++i) {
    out[i] = find_print(prints, 0, ways, keys[i]);
    hint_answer(hints, out[i], ways);
  }
}

#ifdef LOOM_WAY_SCAN_AVX2
namespace {

// Two bits per way of group `g` (16 ways) that match `key`.
__attribute__((target("avx2"))) inline uint64_t group_hits(const uint16_t* prints, int g, __m256i key) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(prints + g * kWayGroup));
  return static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi16(v, key)));
}

// Bits [2 * from, 2 * ways) of a 64-bit mask of 32 ways starting at way `base`.
inline uint64_t way_range(int base, int from, int ways) {
  const int lo = std::clamp(from - base, 0, 32), hi = std::clamp(ways - base, 0, 32);
  const uint64_t below_hi = hi == 32 ? ~uint64_t{0} : (uint64_t{1} << (2 * hi)) - 1;
  const uint64_t from_lo = lo == 32 ? 0 : ~uint64_t{0} << (2 * lo);
  return below_hi & from_lo;
}

}  // namespace

__attribute__((target("avx2"))) int find_print_avx2(const uint16_t* prints, int from, int ways, uint16_t print) {
  const __m256i key = _mm256_set1_epi16(static_cast<int16_t>(print));
  // Up to 64 ways (a V100's L1 sets; its L2's 24), every group is compared without a
  // branch, 32 ways to a 64-bit mask, and the first hit is one count of trailing zeros:
  // a lookup that misses, or hits late in the set, costs no more than one that hits early.
  const int groups = padded_ways(ways) / kWayGroup;
  if (from == 0 && ways == 64) {  // a V100's or T4's L1 set, from its first way: no range to mask
    const uint64_t low = group_hits(prints, 0, key) | group_hits(prints, 1, key) << 32;
    if (low) return std::countr_zero(low) / 2;
    const uint64_t high = group_hits(prints, 2, key) | group_hits(prints, 3, key) << 32;
    return high ? 32 + std::countr_zero(high) / 2 : ways;
  }
  if (groups <= 4) {
    uint64_t low = group_hits(prints, 0, key);
    if (groups > 1) low |= group_hits(prints, 1, key) << 32;
    low &= way_range(0, from, ways);
    if (low) return std::countr_zero(low) / 2;
    if (groups <= 2) return ways;
    uint64_t high = group_hits(prints, 2, key);
    if (groups > 3) high |= group_hits(prints, 3, key) << 32;
    high &= way_range(32, from, ways);
    return high ? 32 + std::countr_zero(high) / 2 : ways;
  }
  for (int group = from / kWayGroup * kWayGroup; group < ways; group += kWayGroup) {
    // Two bits per way; drop the ways before `from` and from `ways` on.
    auto hits = static_cast<uint32_t>(group_hits(prints, group / kWayGroup, key));
    if (from > group) hits &= ~0u << (2 * (from - group));
    if (ways - group < kWayGroup) hits &= (1u << (2 * (ways - group))) - 1;
    if (hits) return group + std::countr_zero(hits) / 2;
  }
  return ways;
}

__attribute__((target("avx512f,avx512bw"))) int find_print_avx512(const uint16_t* prints, int from, int ways,
                                                                  uint16_t print) {
  const __m512i key = _mm512_set1_epi16(static_cast<int16_t>(print));
  const int padded = padded_ways(ways);
  // 64 ways per step, one bit each, and one branch per step: at 256 ways a lookup that
  // misses takes four steps where the AVX2 version took sixteen. Loads stop at the padding's
  // end (masked lanes read nothing); the lanes past `ways`, masked or padding, are dropped
  // below (padded_ways(ways) >= ways, so that mask covers the masked lanes too).
  for (int base = from / 64 * 64; base < ways; base += 64) {
    const int n = std::min(64, padded - base);  // 16, 32, 48 or 64
    const uint64_t load = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    const __m512i low = _mm512_maskz_loadu_epi16(static_cast<__mmask32>(load), prints + base);
    const __m512i high = _mm512_maskz_loadu_epi16(static_cast<__mmask32>(load >> 32), prints + base + 32);
    uint64_t hits = uint64_t{_mm512_cmpeq_epi16_mask(low, key)} | uint64_t{_mm512_cmpeq_epi16_mask(high, key)} << 32;
    if (from > base) hits &= ~uint64_t{0} << (from - base);
    if (ways - base < 64) hits &= (uint64_t{1} << (ways - base)) - 1;
    if (hits) return base + std::countr_zero(hits);
  }
  return ways;
}

__attribute__((target("avx512f,avx512bw"))) void find_prints_avx512(const uint16_t* prints, int ways,
                                                                   const uint16_t* keys, int n, int* out,
                                                                   const WayHints& hints) {
  constexpr int kMaxVectors = 8;  // 256 ways, a V100 L1 set with no shared memory
  const int padded = padded_ways(ways);
  if (padded > kMaxVectors * 32) {  // one scan per key (find_print is the AVX-512 one here)
    find_prints_portable(prints, ways, keys, n, out, hints);
    return;
  }
  // The set, 32 fingerprints to a register; lanes past the padding load as 0, which no key
  // is (fingerprints are never 0), and hits at `ways` or past it are dropped below.
  const int vectors = (padded + 31) / 32, groups = (vectors + 1) / 2;
  __m512i v[kMaxVectors];
  for (int j = 0; j < kMaxVectors; ++j) {
    const int lanes = std::clamp(padded - 32 * j, 0, 32);
    const auto load = static_cast<__mmask32>(lanes == 32 ? ~0u : (1u << lanes) - 1);
    v[j] = _mm512_maskz_loadu_epi16(load, prints + 32 * j);
  }
  const int last = groups - 1;
  const uint64_t tail = ways - 64 * last >= 64 ? ~uint64_t{0} : (uint64_t{1} << (ways - 64 * last)) - 1;
  for (int i = 0; i < n; ++i) {
    const __m512i key = _mm512_set1_epi16(static_cast<int16_t>(keys[i]));
    int found = ways;
    for (int g = 0; g < groups; ++g) {
      uint64_t hits = uint64_t{_mm512_cmpeq_epi16_mask(v[2 * g], key)} |
                      uint64_t{_mm512_cmpeq_epi16_mask(v[2 * g + 1], key)} << 32;
      if (g == last) hits &= tail;
      if (hits) {
        found = 64 * g + std::countr_zero(hits);
        break;
      }
    }
    out[i] = found;
    hint_answer(hints, found, ways);
  }
}
#else
int find_print_avx2(const uint16_t* prints, int from, int ways, uint16_t print) {
  return find_print_portable(prints, from, ways, print);
}
int find_print_avx512(const uint16_t* prints, int from, int ways, uint16_t print) {
  return find_print_portable(prints, from, ways, print);
}
void find_prints_avx512(const uint16_t* prints, int ways, const uint16_t* keys, int n, int* out,
                        const WayHints& hints) {
  find_prints_portable(prints, ways, keys, n, out, hints);
}
#endif

// Chosen once, so a call is one indirect jump and no check.
const FindPrintFn find_print = host_has_avx512bw() ? &find_print_avx512
                               : host_has_avx2()   ? &find_print_avx2
                                                   : &find_print_portable;
const FindPrintsFn find_prints = host_has_avx512bw() ? &find_prints_avx512 : &find_prints_portable;

}  // namespace loom::simt
