#include "arch/simt/timing/l1_cache.h"

namespace loom::simt {

void L1Cache::configure(const GpuConfig& c) {
  tags_.configure(c.l1.bytes, c.l1.line_bytes, c.l1.associativity, 1);
  mshrs_.reset(c.l1.mshrs);
  hit_latency_ = c.l1.hit_latency;
}

}  // namespace loom::simt
