// The L1's miss-status holding registers: each outstanding line miss holds one from the
// cycle it is looked up until its data is back. When all are held, the next miss waits for
// the earliest release, and with it the L1 pipeline behind it (the MIO backs up, and memory
// instructions stall at issue: StallReason::memory_pipe). A min-heap of release cycles in
// storage reserved once per launch, 4-ary rather than binary: a streaming kernel pushes and
// pops one entry per line miss, and with four children side by side a pop visits half as
// many levels, each a host cache line that has usually gone cold since the last miss.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
    size_t i = release_.size();
    release_.push_back(release);
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (release_[parent] <= release) break;
      release_[i] = release_[parent];
      i = parent;
    }
    release_[i] = release;
  }

 private:
  static constexpr size_t kArity = 4;  // children of i: kArity * i + 1 .. kArity * i + kArity

  // Removes the earliest release.
  void pop() {
    const int64_t last = release_.back();
    release_.pop_back();
    const size_t n = release_.size();
    if (n == 0) return;
    size_t i = 0;
    for (;;) {
      const size_t first = kArity * i + 1;
      if (first >= n) break;
      size_t least = first;
      for (size_t c = first + 1; c < std::min(first + kArity, n); ++c)
        if (release_[c] < release_[least]) least = c;
      if (release_[least] >= last) break;
      release_[i] = release_[least];
      i = least;
    }
    release_[i] = last;
  }

  int capacity_ = 1;
  std::vector<int64_t> release_;
};

}  // namespace loom::simt
