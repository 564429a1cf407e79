#include "arch/simt/timing/coalescer.h"

#include <algorithm>
#include <cstdint>

#include "arch/simt/timing/bit_ops.h"
#include "sim/error.h"

namespace loom::simt {

void coalesce(const ExecutedInstruction& x, int line_bytes, int sector_bytes, CoalescedAccess& out) {
  out.lines = 0;
  out.sectors = 0;
  const Divider sector(static_cast<uint64_t>(sector_bytes));
  const Divider per_line(static_cast<uint64_t>(line_bytes / sector_bytes));
  int last = -1;  // consecutive lanes usually touch the line the previous one did
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
      if (last < 0 || out.requests[last].line != line) {
        last = -1;
        if (line >= lowest && line <= highest)
          for (int r = 0; r < out.lines; ++r)
            if (out.requests[r].line == line) {
              last = r;
              break;
            }
        if (last < 0) {
          lowest = std::min(lowest, line);
          highest = std::max(highest, line);
          LOOM_CHECK(out.lines < CoalescedAccess::kMaxLines, "simt coalescer", "memory instruction touches too many lines");
          last = out.lines++;
          out.requests[last] = LineRequest{line, 0};
        }
      }
      uint32_t& mask = out.requests[last].sector_mask;
      out.sectors += (mask & bit) == 0;  // counted as they are added: no popcount per line after
      mask |= bit;
    }
  }
}

}  // namespace loom::simt
