// The runner's progress lines, shared by the real run and --dry-run so both name every
// launch the same way:  [12/140] wmma_gemm M=1024,N=1024,K=1024: 0.123 ms (verified)
#pragma once

#include <cstdint>
#include <string>

#include "validate/runner/runner_plan.h"

namespace loom::gpu_runner {

std::string step_text(int step, int steps);  // "[12/140]"
std::string time_text(double us);            // "0.123 ms", or "4.52 us" below 0.1 ms
std::string byte_text(int64_t bytes);        // "768 MiB"
std::string launch_text(const PlannedLaunch& launch);  // "wmma_gemm M=1024,N=1024,K=1024"
std::string probe_launch_text(const PlannedProbe& probe, bool large);  // "l2_hit_latency, small launch: address_chase ..."
std::string library_text(const std::string& name, int64_t n);  // "cublas_sgemm M=4096,N=4096,K=4096"

}  // namespace loom::gpu_runner
