// The pipelined functional units of one sub-core. A unit with L lanes and initiation
// interval II takes a 32-thread warp in ceil(32/L) passes, so it accepts a new warp every
// ceil(32/L)*II cycles. Latency rule: a dependent instruction may issue `latency` cycles
// after its producer was dispatched, whatever the number of passes, because results are
// forwarded pass by pass and the consumer's passes follow the producer's in lockstep (this
// is why Volta's 16-lane FP32 units show a 4-cycle dependent-issue latency in Jia et al.
// 2018/2019 while taking 2 cycles per warp). FP16 arithmetic runs on the FP32 pipes (Volta,
// Ampere, Hopper), so the two share one pipe, each with its own lanes, II and latency.
// Tensor cores are modelled separately (tensor_core.h); control instructions use no unit.
#pragma once

#include <array>
#include <cstdint>

#include "arch/simt/gpu_config.h"

namespace loom::simt {

struct UnitTiming {
  int occupancy = 1;  // cycles a warp holds the pipe's input
  int latency = 1;    // dispatch to dependent issue
  int pipe = 0;       // which pipe it occupies (FP16 shares FP32's)
};

class FunctionalUnits {
 public:
  static constexpr int kUnits = static_cast<int>(Unit::count);

  // Timing of every pipelined unit under `config` (the same for all sub-cores).
  static std::array<UnitTiming, kUnits> timings(const GpuConfig& config);

  void reset() { free_at_.fill(0); }
  int64_t free_at(const UnitTiming& t) const { return free_at_[t.pipe]; }
  // Reserves the pipe for a warp dispatched at `dispatch`; returns when its result is usable.
  int64_t dispatch(const UnitTiming& t, int64_t dispatch) {
    free_at_[t.pipe] = dispatch + t.occupancy;
    return dispatch + t.latency;
  }

 private:
  std::array<int64_t, kUnits> free_at_{};
};

}  // namespace loom::simt
