// An SM's LD/ST (MIO) queue and the L1/shared pipeline it feeds. Memory instructions enter
// at dispatch and are served in order: a global access takes one cycle per line it touches
// (the L1 moves one 128-byte line per cycle), a shared access one cycle per wavefront. An
// instruction is queued from issue until its service starts; the queue holds
// kMioQueueEntries, and a full queue stalls memory instructions at issue. Service starts
// are non-decreasing, so the queue is full at cycle c exactly when the oldest of the last
// `entries` starts is still after c.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

class MioQueue {
 public:
  void reset() {
    starts_.fill(-1);
    oldest_ = 0;
    free_at_ = 0;
  }

  bool full_at(int64_t c) const { return starts_[oldest_] > c; }
  // While full: the cycle a slot frees.
  int64_t space_at() const { return starts_[oldest_]; }

  // An instruction arriving at `arrival` starts service at the returned cycle; the
  // caller reports the cycle the pipeline is free again through end().
  int64_t begin(int64_t arrival) {
    const int64_t start = std::max(arrival, free_at_);
    starts_[oldest_] = start;
    oldest_ = oldest_ + 1 == kMioQueueEntries ? 0 : oldest_ + 1;
    return start;
  }
  void end(int64_t free_at) { free_at_ = free_at; }

 private:
  std::array<int64_t, kMioQueueEntries> starts_{};
  int oldest_ = 0;
  int64_t free_at_ = 0;
};

}  // namespace loom::simt
