// The functional model's run-time state: the launch, the CTAs resident in hardware slots,
// their warps with register files and SIMT reconvergence stacks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "arch/simt/ptx/global_memory.h"
#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

// One entry of the per-warp reconvergence stack (GPGPU-Sim's PDOM stack): lanes `mask`
// execute from `pc` until they reach `reconverge`, where the entry is popped and the lanes
// rejoin the entry below (which waits at that pc).
struct SimtStackEntry {
  uint32_t pc = 0;
  uint32_t reconverge = kNoReconvergence;
  uint32_t mask = 0;
};

struct WarpState {
  std::vector<SimtStackEntry> stack;  // empty: the warp is done
  uint32_t live = 0;                  // lanes not yet exited
  bool at_barrier = false;
  uint8_t barrier = 0;       // barrier id waited on
  uint32_t barrier_pc = 0;   // the bar.sync it waits at (messages)
  int64_t executed = 0;      // warp instructions so far (%clock)
  uint64_t* regs = nullptr;  // storage_slots x 32 lanes
  uint8_t* local = nullptr;  // 32 lanes x local_bytes
};

struct CtaState {
  static constexpr int kBarriers = 16;
  bool active = false;
  int slot = 0;
  int64_t cta_id = 0;
  Dim3 ctaid;
  int live_warps = 0;
  std::array<uint16_t, kBarriers> arrived{};   // warps waiting at each barrier
  std::array<uint16_t, kBarriers> expected{};  // warps it needs; 0 = every live warp
  std::vector<WarpState> warps;
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local;
};

struct LaunchState {
  const PtxKernel* kernel = nullptr;
  GlobalMemory* memory = nullptr;
  Dim3 grid, block;
  uint32_t threads_per_cta = 0;
  uint32_t warps_per_cta = 0;
  uint64_t shared_bytes = 0;  // static + dynamic
  std::vector<uint8_t> params;
};

}  // namespace loom::simt
