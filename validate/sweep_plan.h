// The validation suite: which shipped kernels the runner times, at which sizes (GEMMs from
// 128 to 8192, element-wise kernels from 2^16 to 2^28 elements, pointer chasing over
// footprints from 4 KiB to 4x L2, ResNet-like convolutions), plus the cuBLAS references.
// Written once here so the runner, the docs and loom's tests agree on it.
#pragma once

#include <string>
#include <vector>

#include "validate/microbenchmarks.h"

namespace loom::validate {

struct PlannedRun {
  std::string kernel;
  SizeMap sizes;
};

// quick: the smaller half of every sweep (a smoke run of the runner).
std::vector<PlannedRun> validation_sweep(const ProbeTarget& target, bool quick);

// GEMM sizes (M = N = K) at which the runner times cuBLAS SGEMM and tensor-op HGEMM.
std::vector<int64_t> library_gemm_sizes(bool quick);

}  // namespace loom::validate
