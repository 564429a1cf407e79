// The fast cycle model of a systolic accelerator as SystemC modules: the array engine
// (one SC_METHOD that wakes only at fold boundaries), its three SRAM buffers and its DRAM
// channel. A fold's internal timing is the closed form of fold_cost() (proven equal to the
// PE-level model); what happens between folds — prefetch into a free buffer slot,
// streaming of data that does not fit a slot, write-back of outputs, SRAM port limits —
// is played out in simulated time, so stalls come from real contention.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>

#include "arch/memory/dram_channel.h"
#include "arch/memory/sram_buffer.h"
#include "arch/systolic/dram_traffic.h"
#include "arch/systolic/fold_plan.h"
#include "arch/systolic/layer_plan.h"  // FoldJob
#include "arch/systolic/layer_timing.h"
#include "arch/systolic/systolic_config.h"

namespace loom {

class SystolicEngine : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(SystolicEngine);
  explicit SystolicEngine(sc_core::sc_module_name name);

  void configure(const SystolicConfig& config);

  // Runs the layers back to back in simulated time; `on_layer_done(i, timing)` is called as
  // each layer finishes (progress, checkpoints). A layer starts with the array idle and every
  // DRAM transfer of the previous one complete, and its statistics window opens then, so its
  // timing does not depend on which layers ran before it (a resumed run skips finished ones).
  using LayerDone = std::function<void(size_t, const LayerTiming&)>;
  std::vector<LayerTiming> run(const std::vector<std::vector<FoldJob>>& layers, const LayerDone& on_layer_done);

 private:
  enum class Phase { idle, layer_begin, wait_start, running };
  void step();  // the engine's only process
  void begin_layer(int64_t now);
  void prefetch(size_t fold, int64_t now);
  bool finish_layer(int64_t now);  // false while write-backs are still in flight
  int64_t busy_cycles(const FoldJob& job) const;

  SramBuffer ifmap_, filter_, ofmap_;
  DramChannel dram_;
  sc_core::sc_event kick_;
  Phase phase_ = Phase::idle;
  const std::vector<std::vector<FoldJob>>* layers_ = nullptr;
  LayerDone on_layer_done_;
  size_t layer_ = 0, fold_ = 0, slots_ = 2;
  int64_t layer_start_ = 0, last_write_done_ = 0;
  std::vector<int64_t> data_ready_;  // per fold: its prefetched inputs have arrived
  std::vector<int64_t> write_done_;  // per fold: its write-back has completed
  std::vector<LayerTiming> timings_;
};

// The process-wide engine (built on first use; see sim/systemc_context.h).
SystolicEngine& systolic_engine();

}  // namespace loom
