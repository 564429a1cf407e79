// The functional model's run-time state: the launch, the CTAs resident in hardware slots,
// their warps with register files and SIMT reconvergence stacks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "arch/simt/ptx/global_memory.h"
#include "arch/simt/ptx/ptx_program.h"
#include "sim/huge_page_arena.h"

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

// A warp's reconvergence stack. Its first entries live inside the WarpState, so that the
// top (the warp's pc) comes into the host's cache with the rest of the warp's state, which
// the timing model hints before the warp issues; a std::vector's buffer would be one more
// cold, dependent miss at every issue. Deeper stacks (nested divergence) move to the heap.
class SimtStack {
 public:
  static constexpr uint32_t kInline = 4;

  bool empty() const { return size_ == 0; }
  uint32_t size() const { return size_; }
  SimtStackEntry& back() { return data()[size_ - 1]; }
  const SimtStackEntry& back() const { return data()[size_ - 1]; }
  SimtStackEntry* begin() { return data(); }
  SimtStackEntry* end() { return data() + size_; }

  // The stack of a warp at its start: one entry.
  void reset(const SimtStackEntry& first) {
    heap_.clear();
    on_heap_ = false;
    inline_[0] = first;
    size_ = 1;
  }
  void push_back(const SimtStackEntry& e) {
    if (!on_heap_ && size_ == kInline) {
      heap_.assign(inline_.begin(), inline_.end());
      on_heap_ = true;
    }
    if (on_heap_) heap_.push_back(e);
    else inline_[size_] = e;
    ++size_;
  }
  void pop_back() {
    --size_;
    if (on_heap_) heap_.pop_back();
  }

 private:
  SimtStackEntry* data() { return on_heap_ ? heap_.data() : inline_.data(); }
  const SimtStackEntry* data() const { return on_heap_ ? heap_.data() : inline_.data(); }

  std::array<SimtStackEntry, kInline> inline_{};
  uint32_t size_ = 0;
  bool on_heap_ = false;
  std::vector<SimtStackEntry> heap_;  // every entry, once the stack outgrew inline_
};

// Two host cache lines, aligned, which a hint asks for together (FunctionalModel::prefetch).
struct alignas(64) WarpState {
  SimtStack stack;    // empty: the warp is done
  uint32_t live = 0;  // lanes not yet exited
  bool at_barrier = false;
  uint8_t barrier = 0;       // barrier id waited on
  uint32_t barrier_pc = 0;   // the bar.sync it waits at (messages)
  int64_t executed = 0;      // warp instructions so far (%clock)
  uint64_t* regs = nullptr;  // storage_units() x 128 bytes (ptx_program.h)
  uint8_t* local = nullptr;  // 32 lanes x local_bytes
};
static_assert(sizeof(WarpState) <= 128, "a warp's state stays within the two lines a hint fetches");

struct CtaState {
  static constexpr int kBarriers = 16;
  bool active = false;
  int slot = 0;
  int64_t cta_id = 0;
  Dim3 ctaid;
  int live_warps = 0;
  std::array<uint16_t, kBarriers> arrived{};   // warps waiting at each barrier
  std::array<uint16_t, kBarriers> expected{};  // warps it needs; 0 = every live warp
  HugePageVector<WarpState> warps;
  HugePageVector<uint8_t> shared;
  HugePageVector<uint8_t> local;
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
