// The tag arrays' passes over one set's ways (sectored_tag_array.h): the first way whose
// 16-bit tag fingerprint matches (a lookup), and the way least recently used (the victim of
// an allocation in a full set). A V100's L1 sets have 64 ways, and most lookups of a
// streaming kernel miss, so both passes run over every way of the set at almost every
// access; they have vector versions (AVX2, 16 fingerprints or 8 stamps per compare) chosen at
// run time where the host has it. Both versions give the same answers
// (tests/test_simt_way_scan.cpp).
#pragma once

#include <cstdint>

namespace loom::simt {

// A set's fingerprints and stamps are stored padded to a multiple of this many ways, so the
// vector versions read whole groups; what the padding holds is never an answer.
inline constexpr int kWayGroup = 16;
inline constexpr int padded_ways(int ways) { return (ways + kWayGroup - 1) / kWayGroup * kWayGroup; }

// The first way w in [from, ways) with prints[w] == print; `ways` if there is none.
using FindPrintFn = int (*)(const uint16_t* prints, int from, int ways, uint16_t print);
// The first way w in [0, ways) whose stamp is the least; ways >= 1.
using OldestWayFn = int (*)(const uint32_t* stamps, int ways);

extern const FindPrintFn find_print;
extern const OldestWayFn oldest_way;

// The two versions of each, for tests; the AVX2 ones only where loom::host_has_avx2().
int find_print_portable(const uint16_t* prints, int from, int ways, uint16_t print);
int find_print_avx2(const uint16_t* prints, int from, int ways, uint16_t print);
int oldest_way_portable(const uint32_t* stamps, int ways);
int oldest_way_avx2(const uint32_t* stamps, int ways);

}  // namespace loom::simt
