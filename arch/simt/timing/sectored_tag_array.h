// A set-associative, sectored tag array with LRU replacement, shared by the L1 and the L2
// slices. Lines are allocated whole, sectors filled one by one. Each valid sector remembers
// the cycle its data arrives: execution happens at issue, so a miss installs its sectors at
// once with their future arrival cycle, and a later access that finds a sector still in
// flight merges with that miss (the MSHR merge) instead of fetching it again. Timing is the
// caller's business; this is only the state. 16-bit tag fingerprints and LRU stamps live
// in arrays of their own, each tag beside its line's sector state: a lookup tries the set's
// most recently hit way first (consecutive warps often touch the same line), then scans the
// set's fingerprints (128 bytes for 64 ways, where the tags would be 512; 16 per vector
// compare where the host has AVX2, way_scan.h) and compares full tags only where a
// fingerprint matches. The simulated machine's caches are far larger than the host's, so
// what a lookup touches, not what it computes, is its cost.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

struct CacheLine {
  // The line's address + 1, 0 = invalid: SectoredTagArray's alone. Kept beside the sector
  // state, so that the tag compare of a lookup brings that state into the host's cache too.
  uint64_t tag = 0;
  uint8_t valid = 0, dirty = 0;  // sector masks
  std::array<int64_t, kMaxSectorsPerLine> ready{};
};

class SectoredTagArray {
 public:
  // bytes == 0: no cache (every lookup misses, nothing is allocated). Lines are indexed by
  // (line / index_stride) % sets, so an L2 slice that receives every slices-th line still
  // uses all of its sets.
  void configure(int64_t bytes, int line_bytes, int associativity, uint64_t index_stride);

  // The resident line's sectors or nullptr; a hit makes it most recently used.
  CacheLine* find(uint64_t line);
  // Allocates `line` (not resident) over the LRU way of its set (an invalid way first);
  // returns its (empty) sectors, or nullptr when there is no cache. The previous occupant's
  // address and dirty sectors go to `evicted_line` and `evicted_dirty` (0: nothing to write).
  CacheLine* allocate(uint64_t line, uint64_t& evicted_line, uint8_t& evicted_dirty);

  bool enabled() const { return ways_ > 0; }
  // Tests: renumber the LRU stamps once the clock reaches `limit` instead of 2^32 - 1.
  void set_stamp_limit_for_testing(uint32_t limit) { stamp_limit_ = limit; }
  const std::vector<CacheLine>& lines() const { return lines_; }

 private:
  size_t set_of(uint64_t line) const { return static_cast<size_t>(set_count_.remainder(stride_.quotient(line))); }

  // Never 0, so that 0 marks an invalid way.
  static uint16_t fingerprint(uint64_t line) {
    const auto f = static_cast<uint16_t>((line * 0x9e3779b97f4a7c15ull) >> 48);
    return f ? f : 1;
  }
  // Renumbers the LRU stamps 1..k in the same order when the 32-bit clock runs out.
  void renumber_stamps();

  // Per set, padded to scan_stride_ ways for the vector scans (way_scan.h):
  std::vector<uint16_t> fingerprints_;  // fingerprint(line) of each valid way; 0 = invalid
  std::vector<uint32_t> last_use_;
  size_t scan_stride_ = 0;
  // Per set: the way that hit (or was allocated) last, and how many ways have ever been
  // filled. Lines are never invalidated, so the ways fill lowest first and the lowest
  // invalid way is always `filled`: an allocation needs no scan for one.
  struct SetState {
    uint16_t last_hit = 0;
    uint16_t filled = 0;
  };
  std::vector<SetState> set_state_;
  std::vector<CacheLine> lines_;
  uint64_t sets_ = 0;
  int ways_ = 0;
  Divider stride_, set_count_;
  uint32_t clock_ = 0;  // LRU stamps
  uint32_t stamp_limit_ = UINT32_MAX;
};

}  // namespace loom::simt
