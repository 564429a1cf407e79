// The tag arrays' pass over one set's ways (sectored_tag_array.h): the first way whose
// 16-bit tag fingerprint matches. A V100's L1 sets have 64 to 256 ways (4 sets whose ways
// follow the carve-out), and most lookups of a streaming kernel miss, so the pass runs over
// every way of the set at almost every access; it has vector versions (AVX2, 16
// fingerprints per compare; AVX-512, 32) chosen at run time where the host has them. Every
// version gives the same answers (tests/test_simt_way_scan.cpp). A load whose lines share a
// set (a wmma.load's rows) scans it once for all of them (find_prints).
#pragma once

#include <cstddef>
#include <cstdint>

namespace loom::simt {

// A set's fingerprints are stored padded to a multiple of this many ways, so the
// vector versions read whole groups; what the padding holds is never an answer.
inline constexpr int kWayGroup = 16;
inline constexpr int padded_ways(int ways) { return (ways + kWayGroup - 1) / kWayGroup * kWayGroup; }

// The first way w in [from, ways) with prints[w] == print; `ways` if there is none.
using FindPrintFn = int (*)(const uint16_t* prints, int from, int ways, uint16_t print);

extern const FindPrintFn find_print;

// Where a set's ways keep their state, so that a scan asks the host for each answer's
// lines as soon as it has found it (the lookups that follow wait on them): way w's line
// at lines + w * line_bytes and its links at links + w * link_bytes; `victim` is the way
// whose state to ask for when a key is absent (allocate's, in a full set), or -1.
struct WayHints {
  const char* lines = nullptr;
  size_t line_bytes = 0;
  const char* links = nullptr;
  size_t link_bytes = 0;
  int victim = -1;
};

// find_print from way 0 for each of keys[0..n), into out[0..n), with each answer hinted
// (WayHints): the lookups of a load whose lines share a set (a wmma.load's 16 rows, 2 KiB
// apart, all fall in one of a V100 L1's 4 sets). The AVX-512 version reads the set's
// fingerprints once, into registers, and compares each key against them all (8 compares
// at 256 ways), where n calls of find_print would load them n times, each behind an
// indirect call and a loop.
using FindPrintsFn = void (*)(const uint16_t* prints, int ways, const uint16_t* keys, int n, int* out,
                              const WayHints& hints);

extern const FindPrintsFn find_prints;

// The versions, for tests; the AVX2 one only where loom::host_has_avx2(), the AVX-512 one
// (64 fingerprints per step, for the V100's and the T4's L1 sets of up to 256 ways) only
// where loom::host_has_avx512bw().
int find_print_portable(const uint16_t* prints, int from, int ways, uint16_t print);
int find_print_avx2(const uint16_t* prints, int from, int ways, uint16_t print);
int find_print_avx512(const uint16_t* prints, int from, int ways, uint16_t print);
void find_prints_portable(const uint16_t* prints, int ways, const uint16_t* keys, int n, int* out,
                          const WayHints& hints);
void find_prints_avx512(const uint16_t* prints, int ways, const uint16_t* keys, int n, int* out,
                        const WayHints& hints);

}  // namespace loom::simt
