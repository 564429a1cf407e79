// The L1's miss-status holding registers: each outstanding line miss holds one from the
// cycle it is looked up until its data is back. When all are held, the next miss waits for
// the earliest release, and with it the L1 pipeline behind it (the MIO backs up, and memory
// instructions stall at issue: StallReason::memory_pipe). A min-heap of release cycles in
// storage reserved once per launch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace loom::simt {

class MshrPool {
 public:
  void reset(int capacity) {
    capacity_ = capacity;
    release_.clear();
    release_.reserve(static_cast<size_t>(capacity));
  }

  // The first cycle >= t at which a new miss can take an MSHR; takes it (call hold_until).
  int64_t acquire(int64_t t) {
    while (!release_.empty() && release_.front() <= t) pop();
    if (static_cast<int>(release_.size()) < capacity_) return t;
    const int64_t freed = release_.front();
    pop();
    return freed;
  }
  void hold_until(int64_t release) {
    release_.push_back(release);
    std::push_heap(release_.begin(), release_.end(), std::greater<>());
  }

 private:
  void pop() {
    std::pop_heap(release_.begin(), release_.end(), std::greater<>());
    release_.pop_back();
  }
  int capacity_ = 1;
  std::vector<int64_t> release_;
};

}  // namespace loom::simt
