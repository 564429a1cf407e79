// A first-come-first-served resource that moves a fixed number of bytes per cycle: a NoC
// port, an L2 slice, a DRAM channel. Requests are reserved when they are known (execute at
// issue), each starting when both it has arrived and the previous one has left; fractional
// bandwidths keep their fractions, so a long stream runs at exactly the configured rate.
#pragma once

#include <algorithm>
#include <cstdint>

namespace loom::simt {

class BandwidthServer {
 public:
  void reset(double bytes_per_cycle) {
    bytes_per_cycle_ = bytes_per_cycle;
    free_at_ = 0;
    last_bytes_ = -1;
  }

  // A request of `bytes` arriving at cycle `arrival`: returns the cycle its last byte has
  // passed. On an idle server a request of at most one cycle's bytes passes in the cycle it
  // arrives, so the server adds no latency beyond its own serialisation.
  int64_t pass(int64_t arrival, double bytes) {
    // A server sees a few request sizes over and over (a sector, a line), so the cycles of
    // the last size are kept: the same quotient, without a division in the chain of
    // dependent operations every L1 miss waits on.
    if (bytes != last_bytes_) {
      last_bytes_ = bytes;
      last_cycles_ = bytes / bytes_per_cycle_;
    }
    const double start = std::max(static_cast<double>(arrival), free_at_);
    free_at_ = start + last_cycles_;
    return std::max(arrival, ceil_cycles(free_at_) - 1);
  }

 private:
  // std::ceil, inline: on baseline x86-64 (no SSE4.1 rounding instruction) std::ceil is a
  // libm call, and every line an L1 miss moves passes two or three servers. Exact for the
  // non-negative cycle counts here (below 2^63).
  static int64_t ceil_cycles(double x) {
    const auto whole = static_cast<int64_t>(x);
    return static_cast<double>(whole) < x ? whole + 1 : whole;
  }

  double bytes_per_cycle_ = 1;
  double free_at_ = 0;
  double last_bytes_ = -1, last_cycles_ = 0;  // bytes / bytes_per_cycle_ of the last request
};

}  // namespace loom::simt
