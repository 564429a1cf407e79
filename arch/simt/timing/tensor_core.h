// Tensor cores, decomposed the way Volta executes a warp MMA (Raihan, Goli, Aamodt,
// "Modeling Deep Learning Accelerator Enabled GPUs", ISPASS 2019; Jia et al. 2018/2019):
//
//  * A warp MMA of shape M x N x K is cut along K into *sets*; set j+1 accumulates into the
//    results of set j (the accumulator dependency). One tensor-core operation is m x n x k
//    (4x4x4) at rate 1 and takes one cycle. A rate r > 1 (Turing INT8 2, INT4 4, INT1 16;
//    Ampere/Hopper configs model their wider cores as one core of rate 4 or 8) first deepens
//    the operation along K, d = min(floor(r), K/k), and the rest of the rate shortens it to
//    d/r cycles; a rate below 1 (TF32 0.5 on Ampere) takes 1/r cycles. A set covers k*d of K.
//  * Each set computes (M/m)*(N/n) output tiles; the warp's 4 octets each issue one tile per
//    *step*, so a set has ceil(tiles/4) steps. m16n16k16 FP16: 4 sets x 4 steps x 4 tiles =
//    64 operations = 2*16*16*16 FLOPs / 128 FLOPs per 4x4x4 operation.
//  * Operations are list-scheduled in program order onto the sub-core's tensor.per_subcore
//    cores (earliest-free core first); an operation starts when its core is free and its
//    tile's previous-set result exists, holds the core for d/r cycles and delivers its
//    result tensor.pipeline_latency cycles after it starts. Each step costs every core it
//    uses tensor.step_overhead extra cycles.
//
// Two figures come out of the schedule: the *occupancy* (the busiest core's busy cycles:
// independent MMAs of other warps fill any gaps, so the sub-core accepts a new MMA this
// often) and the *latency* (dispatch to the last accumulator result). When the dependency
// never binds (pipeline_latency fits within a set's steps, as on Volta), they are
//   occupancy = sets * steps_per_set * (ceil(4 / per_subcore) * d/r + step_overhead)
//   latency   = occupancy + pipeline_latency - d/r
// V100 (2 cores, latency 4, no overhead), m16n16k16 FP16: occupancy 32 cycles
// (4096 FMAs / 128 FMAs per cycle), latency 35 (Titan V measures 35.35 per dependent wmma).
// One core of rate 4, latency 18 (configs/a100.json), mma m16n8k16: occupancy 8, latency 25
// (A100 measures 26.0). Rate 6, latency 16 (h200.json, calibrated to a real H200), m16n16k16:
// occupancy 10.7, latency 26 (the H200 measured 26.98 per dependent wmma).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "arch/simt/gpu_config.h"

namespace loom::simt {

struct MmaTiming {
  int64_t occupancy = 0;    // cycles between independent MMAs on one sub-core
  int64_t latency = 0;      // dispatch to the accumulator result
  int64_t ops = 0;          // 4x4x4-equivalent operations (2*M*N*K / (2*m*n*k))
  int64_t busy_cycles = 0;  // summed over the sub-core's tensor cores
  int sets = 0, steps_per_set = 0;
};

const char* tensor_precision_name(TensorPrecision precision);

// Schedules one M x N x K MMA; throws InputError(config_file, "tensor", "this GPU's tensor
// cores do not support ...") for a precision with rate 0.
MmaTiming decompose_mma(const TensorCoreConfig& tensor, int m, int n, int k, TensorPrecision precision,
                        const std::string& config_file);

// The few MMA shapes a kernel uses, scheduled once per launch.
class MmaTimingCache {
 public:
  void reset(const TensorCoreConfig& tensor, const std::string& config_file);
  const MmaTiming& get(const StaticInstruction& inst);

 private:
  struct Entry {
    uint8_t m = 0, n = 0, k = 0;
    TensorPrecision precision = TensorPrecision::none;
    MmaTiming timing;
  };
  TensorCoreConfig tensor_;
  std::string config_file_;
  std::array<Entry, 16> entries_{};
  int count_ = 0;
  MmaTiming overflow_;
};

}  // namespace loom::simt
