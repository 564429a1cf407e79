// The limits of one SIMT GPU simulation, in one place: what a launch may allocate and how
// much work the cycle model will simulate. Launches are checked against them before
// anything is allocated or simulated (arch/simt/kernels/launch_limits.h); the timing engine
// also stops any launch that reaches the instruction limit (a custom kernel whose work
// cannot be estimated up front, or one that never terminates).
#pragma once

#include <cstdint>

namespace loom::simt {

// Bytes of all of one launch's buffers. The simulator holds each buffer at least twice (the
// host copy that fills device memory, and simulated device memory), and more when it checks
// the output against the CPU reference: triad with 1.5 GiB of buffers peaks at 4.6 GB
// (docs/reliability.md), so 2 GiB of buffers is about 6 GB of host memory. A launch must
// also fit the GPU's own memory (the config's dram_bytes).
inline constexpr int64_t kMaxLaunchBufferBytes = int64_t{2} << 30;

// Warp instructions the cycle model simulates in one run (one `loom gpu` launch, or every
// distinct launch of a `loom run` network together). The model runs the GEMM kernels at 1 to
// 3 million warp instructions per second on one core (docs/performance.md), so this is 15 to
// 40 minutes of simulation (a bare loop runs faster: 5 minutes); the largest shipped case,
// VGG-16 at FP32 (tiled GEMMs), needs 2.2 x 10^9.
inline constexpr int64_t kMaxSimulatedWarpInstructions = 2'500'000'000;

}  // namespace loom::simt
