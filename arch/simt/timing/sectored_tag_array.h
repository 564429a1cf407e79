// A set-associative, sectored tag array with LRU replacement, shared by the L1 and the L2
// slices. Lines are allocated whole, sectors filled one by one. Each valid sector remembers
// the cycle its data arrives: execution happens at issue, so a miss installs its sectors at
// once with their future arrival cycle, and a later access that finds a sector still in
// flight merges with that miss (the MSHR merge) instead of fetching it again. Timing is the
// caller's business; this is only the state. Tags and LRU stamps live in their own arrays,
// so a lookup in a 64-way set scans 512 contiguous bytes of tags (after trying the set's
// most recently hit way: consecutive warps often touch the same line).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

struct CacheLine {
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
  const std::vector<CacheLine>& lines() const { return lines_; }

 private:
  size_t set_of(uint64_t line) const { return static_cast<size_t>(set_count_.remainder(stride_.quotient(line))); }

  std::vector<uint64_t> tags_;  // line address + 1; 0 = invalid
  std::vector<uint64_t> last_use_;
  std::vector<uint32_t> last_hit_;  // per set: the way that hit last
  std::vector<CacheLine> lines_;
  uint64_t sets_ = 0;
  int ways_ = 0;
  Divider stride_, set_count_;
  uint64_t clock_ = 0;  // LRU stamps
};

}  // namespace loom::simt
