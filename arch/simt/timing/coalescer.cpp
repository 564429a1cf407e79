#include "arch/simt/timing/coalescer.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "arch/simt/timing/bit_ops.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

// Division by a power of two: the coalescer's two divisions, by the sector size and by
// the sectors per line, are shifts (the config reader accepts only powers of two), and a
// Divider's test of which it is, twice per sector, was a fifth of the loop.
struct Shift {
  int bits;
  uint64_t quotient(uint64_t x) const { return x >> bits; }
  uint64_t remainder(uint64_t x) const { return x & ((uint64_t{1} << bits) - 1); }
};

void coalesce_by(const ExecutedInstruction& x, Shift sector, Shift per_line, CoalescedAccess& out) {
  // The counts and the request being added to live in locals, written back when left:
  // through `out` every update would be a store and a reload, for the compiler cannot tell
  // `out` from `x`.
  LineRequest* const requests = out.requests.data();
  int lines = 0, sectors = 0;
  int last = -1;  // consecutive lanes usually touch the line the previous one did
  uint64_t last_line = UINT64_MAX;  // requests[last].line; no line is UINT64_MAX
  uint32_t last_mask = 0;           // requests[last].sector_mask, not yet written back
  // Lines outside [lowest, highest] seen so far are new without a search: lanes and wmma
  // rows usually walk memory in one direction.
  uint64_t lowest = UINT64_MAX, highest = 0;
  // The sector the previous segment ended in: consecutive lanes of 4 or 8 bytes share one,
  // and a segment inside it adds nothing.
  uint64_t previous = UINT64_MAX;
  for (int i = 0; i < x.n_segments; ++i) {
    const MemorySegment& seg = x.segments[i];
    if (seg.bytes == 0) continue;
    const uint64_t first_sector = sector.quotient(seg.address);
    const uint64_t last_sector = sector.quotient(seg.address + seg.bytes - 1);
    if (first_sector == previous && last_sector == previous) continue;
    previous = last_sector;
    for (uint64_t s = first_sector; s <= last_sector; ++s) {
      const uint64_t line = per_line.quotient(s);
      const uint32_t bit = uint32_t{1} << per_line.remainder(s);
      if (line != last_line) {
        if (last >= 0) requests[last].sector_mask = last_mask;
        last = -1;
        if (line >= lowest && line <= highest)
          for (int r = 0; r < lines; ++r)
            if (requests[r].line == line) {
              last = r;
              break;
            }
        if (last < 0) {
          lowest = std::min(lowest, line);
          highest = std::max(highest, line);
          LOOM_CHECK(lines < CoalescedAccess::kMaxLines, "simt coalescer", "memory instruction touches too many lines");
          last = lines++;
          requests[last] = LineRequest{line, 0};
        }
        last_line = line;
        last_mask = requests[last].sector_mask;
      }
      sectors += (last_mask & bit) == 0;  // counted as they are added: no popcount per line after
      last_mask |= bit;
    }
  }
  if (last >= 0) requests[last].sector_mask = last_mask;
  out.lines = lines;
  out.sectors = sectors;
}

}  // namespace

void coalesce(const ExecutedInstruction& x, int line_bytes, int sector_bytes, CoalescedAccess& out) {
  const auto sector = static_cast<uint64_t>(sector_bytes), per_line = static_cast<uint64_t>(line_bytes / sector_bytes);
  LOOM_CHECK(is_power_of_two(sector) && is_power_of_two(per_line), "simt coalescer",
             "line and sector sizes must be powers of two");
  coalesce_by(x, Shift{std::countr_zero(sector)}, Shift{std::countr_zero(per_line)}, out);
}

}  // namespace loom::simt
