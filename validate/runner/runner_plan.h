// What one run of the runner launches, in order, decided before any GPU time is spent: the
// validation sweep (validate/sweep_plan.h) grouped by kernel, the microbenchmark probes
// (validate/microbenchmarks.h), the cuBLAS GEMM sizes. Every launch's recipe is built and
// checked against the runner's kernel table here, so a catalog/kernel mismatch stops the
// runner at once instead of an hour into a sweep.
#pragma once

#include <string>
#include <vector>

#include "arch/simt/kernels/kernel_catalog.h"
#include "validate/microbenchmarks.h"
#include "validate/sweep_plan.h"

namespace loom::gpu_runner {

struct PlannedLaunch {
  simt::LaunchRecipe recipe;
  validate::SizeMap sizes;  // the kernel's own size parameters (what the file records)
};

struct SweepFamily {  // every size of one kernel: the runner saves its file after each
  std::string kernel;
  std::vector<PlannedLaunch> runs;
};

struct PlannedProbe {
  const validate::MicrobenchmarkDef* def = nullptr;
  PlannedLaunch small, large;
};

struct RunnerPlan {
  std::vector<SweepFamily> sweep;
  std::vector<PlannedProbe> probes;
  std::vector<int64_t> library_sizes;  // cuBLAS GEMMs, M = N = K; empty when filtered out
  // Progress steps: the launch-overhead measurement, every launch, two cuBLAS calls a size.
  int steps() const;
};

// The name --kernels takes for the cuBLAS references.
inline constexpr const char* kLibraryFilterName = "cublas";

// Checks --kernels: each name a shipped kernel or "cublas" (InputError otherwise).
void check_kernel_filter(const std::vector<std::string>& kernels);

// The plan for a device. `kernels` (empty: everything) keeps the sweep runs and probes of
// those kernels, and the cuBLAS references when it names "cublas". std::logic_error when a
// planned launch does not match the runner's kernel (see launch_arguments.h).
RunnerPlan make_runner_plan(const validate::ProbeTarget& target, bool quick, const std::vector<std::string>& kernels);

PlannedLaunch plan_launch(const std::string& kernel, const validate::SizeMap& sizes);

}  // namespace loom::gpu_runner
