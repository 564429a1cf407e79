#include "arch/simt/timing/l1_cache.h"

#include <algorithm>
#include <bit>

namespace loom::simt {

void L1Cache::configure(const GpuConfig& c) {
  tags_.configure(c.l1.bytes, c.l1.line_bytes, c.l1.associativity, 1);
  mshrs_.reset(c.l1.mshrs);
  hit_latency_ = c.l1.hit_latency;
}

void L1Cache::fill(uint64_t line, L1Lookup& lookup, int64_t ready) {
  if (!lookup.line) {
    uint64_t evicted = 0;
    uint8_t dirty = 0;  // always 0: stores never allocate in L1
    lookup.line = tags_.allocate(line, evicted, dirty);
    if (!lookup.line) return;  // no L1 (all shared memory)
  }
  for (uint32_t m = lookup.missing; m; m &= m - 1) {
    const int s = std::countr_zero(m);
    lookup.line->valid |= static_cast<uint8_t>(1u << s);
    lookup.line->ready[s] = ready;
  }
}

}  // namespace loom::simt
