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

// Bit i: from < ready_at[i] <= last, the warps that become ready in (from, last]; for
// ready_at[0 .. count), count <= 64, every value and `from` non-negative. Hints for the
// warps waking in an SM's window ask it once per sub-core per window.
using ScanWakingFn = uint64_t (*)(const int64_t* ready_at, size_t count, int64_t from, int64_t last);
extern const ScanWakingFn scan_waking;

// The two versions of each, for tests; the AVX2 ones only where loom::host_has_avx2().
uint64_t scan_waking_portable(const int64_t* ready_at, size_t count, int64_t from, int64_t last);
uint64_t scan_waking_avx2(const int64_t* ready_at, size_t count, int64_t from, int64_t last);
ReadyScan scan_ready_portable(const int64_t* ready_at, size_t count, int64_t now, int64_t never);
ReadyScan scan_ready_avx2(const int64_t* ready_at, size_t count, int64_t now, int64_t never);

}  // namespace loom::simt
