// The tag arrays' pass over one set's ways (sectored_tag_array.h): the first way whose
// 16-bit tag fingerprint matches. A V100's L1 sets have 64 to 256 ways (4 sets whose ways
// follow the carve-out), and most lookups of a streaming kernel miss, so the pass runs over
// every way of the set at almost every access; it has vector versions (AVX2, 16
// fingerprints per compare; AVX-512, 32) chosen at run time where the host has them. Every
// version gives the same answers (tests/test_simt_way_scan.cpp).
#pragma once

#include <cstdint>

namespace loom::simt {

// A set's fingerprints are stored padded to a multiple of this many ways, so the
// vector versions read whole groups; what the padding holds is never an answer.
inline constexpr int kWayGroup = 16;
inline constexpr int padded_ways(int ways) { return (ways + kWayGroup - 1) / kWayGroup * kWayGroup; }

// The first way w in [from, ways) with prints[w] == print; `ways` if there is none.
using FindPrintFn = int (*)(const uint16_t* prints, int from, int ways, uint16_t print);

extern const FindPrintFn find_print;

// The versions, for tests; the AVX2 one only where loom::host_has_avx2(), the AVX-512 one
// (64 fingerprints per step, for the V100's and the T4's L1 sets of up to 256 ways) only
// where loom::host_has_avx512bw().
int find_print_portable(const uint16_t* prints, int from, int ways, uint16_t print);
int find_print_avx2(const uint16_t* prints, int from, int ways, uint16_t print);
int find_print_avx512(const uint16_t* prints, int from, int ways, uint16_t print);

}  // namespace loom::simt
