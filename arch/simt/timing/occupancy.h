// How many CTAs of a launch fit on one SM at once, and which resource limits it; and the
// launch-time checks that reject a CTA that can never fit.
//
// Allocation granularity (as the CUDA occupancy calculator states for compute capability
// 7.x-9.x): registers are allocated per warp in units of 256 (kRegisterAllocationUnit), so a
// 33-register kernel uses 33*32 = 1056 -> 1280 registers per warp; shared memory per CTA in
// units of 256 bytes. Threads and warps count whole warps.
#pragma once

#include <cstdint>

#include "arch/simt/gpu_config.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

struct GridDims {
  int64_t x = 1, y = 1, z = 1;
};

struct Occupancy {
  int ctas_per_sm = 0;
  // The resource that attains the minimum; on a tie the first of "threads", "warps",
  // "registers", "shared", "ctas" (the order the CUDA occupancy calculator lists them).
  const char* limiter = "";
  int64_t registers_per_cta = 0;  // as allocated (rounded per warp)
  int64_t shared_per_cta = 0;     // as allocated (rounded), the system's reserve included
  // The launch's split of the unified L1/shared array (launch_carveout below).
  int64_t shared_carveout = 0;
  int64_t l1_bytes = 0;
};

// Throws InputError("", "launch", ...) naming the limit and the value when one CTA can
// never be resident (threads, warps, shared memory, registers) or the grid exceeds the
// grid-dimension limits.
void check_launch(const GpuConfig& config, const CtaResources& cta, const GridDims& grid);

// The occupancy of a launch that passed check_launch (ctas_per_sm >= 1), with the
// shared-memory limit taken at the largest carve-out (shared_bytes), and the launch's
// carve-out.
Occupancy compute_occupancy(const GpuConfig& config, const CtaResources& cta);

// The carve-out the driver configures for a launch: the smallest of config.shared_carveouts
// that holds the shared memory of the CTAs resident at the occupancy above, so that shared
// memory never lowers the occupancy and the rest of the array serves as L1 (the CUDA
// driver's documented aim: "to avoid shared memory occupancy bottlenecks"; a kernel that
// uses no shared memory on a Volta gets the whole 128 KiB as L1). Without carve-outs in
// the config, shared_bytes.
int64_t launch_carveout(const GpuConfig& config, int ctas_per_sm, int64_t shared_per_cta);

// `config` as one launch sees it: l1.bytes is what the launch's carve-out leaves.
GpuConfig config_for_launch(const GpuConfig& config, const Occupancy& occupancy);

// Registers one warp is allocated: registers_per_thread * warp_size rounded up to 256.
int64_t registers_per_warp(const GpuConfig& config, int registers_per_thread);

}  // namespace loom::simt
