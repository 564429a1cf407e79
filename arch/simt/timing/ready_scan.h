// The scheduler's pass over a sub-core's warps: which are ready now, and when the first of
// the others will be. It runs at almost every evaluation of every sub-core, so it has a
// vector version (AVX2, four warps per compare) chosen at run time where the host has it;
// both versions give the same answer (tests/test_simt_ready_scan.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace loom::simt {

struct ReadyScan {
  uint64_t ready = 0;   // bit i: ready_at[i] <= now
  int64_t soonest = 0;  // the least ready_at[i] > now; `never` if there is none
};

// ready_at[0 .. count), count <= 64; every value in [0, never].
using ScanReadyFn = ReadyScan (*)(const int64_t* ready_at, size_t count, int64_t now, int64_t never);
extern const ScanReadyFn scan_ready;

// The two versions, for tests; scan_ready_avx2 only where loom::host_has_avx2().
ReadyScan scan_ready_portable(const int64_t* ready_at, size_t count, int64_t now, int64_t never);
ReadyScan scan_ready_avx2(const int64_t* ready_at, size_t count, int64_t now, int64_t never);

}  // namespace loom::simt
