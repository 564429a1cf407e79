// Up-front checks of SIMT launches against the limits in arch/simt/simt_limits.h, from the
// launch recipe alone: its buffer bytes, and an estimate of the warp instructions it will
// execute. Shipped kernels have an estimate: the analytic model's exact instruction count for
// the GEMM and convolution kernels (gpu_analytic.h), a closed-form upper bound for the
// microbenchmarks. A custom .ptx kernel has only a lower bound (every warp executes at least
// one instruction); the timing engine stops it if it runs past the limit.
#pragma once

#include <cstdint>
#include <string>

#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/layer_kernels.h"
#include "workloads/network.h"

namespace loom::simt {

// Bytes of all the recipe's buffers (saturating: a sum beyond 2^62 reads 2^62).
int64_t launch_buffer_bytes(const LaunchRecipe& recipe);

// Warp instructions the launch executes: exact or an upper bound for shipped kernels, a
// lower bound (one per warp) for any other. Saturates at 2^62.
int64_t warp_instruction_estimate(const LaunchRecipe& recipe, const GpuConfig& config);

// InputError when the buffers exceed kMaxLaunchBufferBytes or the config's dram_bytes, or
// the estimate exceeds kMaxSimulatedWarpInstructions, naming the option that set what is too
// large: --size for shipped kernels, --args (buffers) or --grid (work) for .ptx kernels. Run
// by run_recipe before anything is allocated.
void check_launch_limits(const LaunchRecipe& recipe, const GpuConfig& config);

// The same for a network run on the cycle model: every distinct layer launch's buffers, and
// the estimates of the distinct launches summed (repeats are not simulated again). Errors
// name the workload file and the layer. Run by run_network_on_gpu before any layer runs.
void check_network_limits(const Network& network, const GpuConfig& config, GpuPrecision precision);

}  // namespace loom::simt
