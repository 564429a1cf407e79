// The SIMT GPU timing model as loom's SystemC engine: one process-wide module (built on
// first use, see sim/systemc_context.h) whose single SC_METHOD steps a launch's cycles.
// One SystemC nanosecond is one GPU core cycle. The method simulates up to
// kSyncQuantumCycles cycles per activation (idle stretches skipped) and then waits in
// SystemC time until the next cycle it has to visit, so SystemC time always equals the
// model's cycle at the start of an activation and ends at the kernel's last cycle.
//
// The CLI calls simulate_launch() once per kernel launch; every launch starts with empty
// caches (same inputs, same statistics, whatever ran before).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>

#include <systemc>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/timing/gpu_timing_model.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

struct LaunchProgress {
  int64_t cycles = 0;  // simulated so far
  int64_t ctas_retired = 0;
  int64_t ctas_total = 0;
  int64_t warp_instructions = 0;
};
// Called about every kSyncQuantumCycles simulated cycles and once at the end.
using ProgressFn = std::function<void(const LaunchProgress&)>;

class GpuEngine : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(GpuEngine);
  explicit GpuEngine(sc_core::sc_module_name name);

  // Simulates one launch to completion. Throws InputError for launches that cannot run
  // (see check_launch, check_timing_config, tensor precisions) and whatever the source throws.
  GpuStats run(const GpuConfig& config, WarpInstructionSource& source, const ProgressFn& progress);

  // SM-cycles the last launch actually visited (idle stretches are skipped).
  int64_t last_loop_iterations() const { return model_.loop_iterations(); }
  // Sub-core scheduler evaluations of the last launch (issuing or not).
  int64_t last_evaluations() const { return model_.evaluations(); }

 private:
  enum class Phase { idle, running, draining };
  void step();  // the engine's only process
  void report();

  GpuTimingModel model_;
  sc_core::sc_event kick_;
  Phase phase_ = Phase::idle;
  int64_t origin_ = 0;  // SystemC cycle of the launch's cycle 0
  const ProgressFn* progress_ = nullptr;
  std::exception_ptr error_;
};

// The process-wide engine (built on first use).
GpuEngine& gpu_engine();

// One kernel launch on `config`, executed by `source`: what the CLI calls.
GpuStats simulate_launch(const GpuConfig& config, WarpInstructionSource& source, const ProgressFn& progress = {});

}  // namespace loom::simt
