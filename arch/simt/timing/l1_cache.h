// An SM's L1 data cache: l1.bytes (the unified array minus the shared carve-out), sectored,
// LRU, l1.associativity ways, l1.hit_latency load-to-use, l1.mshrs outstanding line misses
// (misses to a sector already in flight merge with it and take no MSHR). Global loads
// allocate; global stores write through to L2 without allocating (Volta), leaving any
// resident copy valid. Local memory is treated as global. A "hit" is a sector that needed
// no new L2 request (present or in flight).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "arch/simt/gpu_config.h"
#include "arch/simt/timing/mshr_pool.h"
#include "arch/simt/timing/sectored_tag_array.h"

namespace loom::simt {

struct L1Lookup {
  uint32_t missing = 0;  // sectors to fetch from L2
  int64_t ready = 0;     // when the sectors that did not miss are usable
  CacheLine* line = nullptr;
};

class L1Cache {
 public:
  void configure(const GpuConfig& config);

  // Looks sectors `mask` of `line` up at cycle `t` (the tag stage).
  L1Lookup lookup(uint64_t line, uint32_t mask, int64_t t) { return sectors_of(tags_.find(line), mask, t); }
  // Where `line` is, ahead of its lookup (SectoredTagArray::probe); also a hint.
  int probe(uint64_t line) const { return tags_.probe(line); }
  // probe() of each of lines[0..n), into ways[0..n) (SectoredTagArray::probe_all).
  void probe_all(const uint64_t* lines, int n, int* ways) const { tags_.probe_all(lines, n, ways); }
  // Whether a lookup of sectors `mask` of `line`, probed at `way`, would miss some of them.
  bool lacks(uint64_t line, int way, uint32_t mask) const { return (mask & ~uint32_t{tags_.valid_probed(line, way)}) != 0; }
  // lookup() of a line probed at `way`, with no fill of `line` in between.
  L1Lookup lookup_probed(uint64_t line, int way, uint32_t mask, int64_t t) {
    return sectors_of(tags_.find_probed(line, way), mask, t);
  }
  // Installs the sectors of `lookup.missing` arriving at `ready`. Inline: every L1 miss
  // comes here.
  void fill(uint64_t line, L1Lookup& lookup, int64_t ready) {
    if (!lookup.line) {
      uint64_t evicted = 0;
      uint8_t dirty = 0;  // always 0: stores never allocate in L1
      lookup.line = tags_.allocate(line, evicted, dirty);
      if (!lookup.line) return;  // no L1 (all shared memory)
    }
    for (uint32_t m = lookup.missing; m; m &= m - 1) {
      const int s = std::countr_zero(m);
      lookup.line->valid |= static_cast<uint8_t>(1u << s);
      tags_.set_arrival(*lookup.line, s, ready);
    }
  }

  MshrPool& mshrs() { return mshrs_; }
  // SectoredTagArray::rebase_times.
  void rebase_times(int64_t now) { tags_.rebase_times(now); }

 private:
  // Inline: every line of every global load comes here, and the call was a third of it.
  L1Lookup sectors_of(CacheLine* line, uint32_t mask, int64_t t) const {
    L1Lookup r;
    r.ready = t + hit_latency_;
    r.missing = mask;
    r.line = line;
    if (line) {
      for (uint32_t present = mask & line->valid; present; present &= present - 1)
        r.ready = std::max(r.ready, tags_.arrival(*line, std::countr_zero(present)));
      r.missing &= ~static_cast<uint32_t>(line->valid);
    }
    return r;
  }

  SectoredTagArray tags_;
  MshrPool mshrs_;
  int hit_latency_ = 1;
};

}  // namespace loom::simt
