#include "arch/simt/timing/gpu_engine.h"

#include "arch/simt/simt_limits.h"
#include "arch/simt/timing/timing_constants.h"
#include "sim/error.h"
#include "sim/systemc_context.h"

namespace loom::simt {

GpuEngine::GpuEngine(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(step);
  sensitive << kick_;
  dont_initialize();
}

namespace {
GpuEngine& the_gpu_engine() {
  static GpuEngine engine("simt_gpu");
  return engine;
}
const bool kRegistered = (sim::register_engine([] { the_gpu_engine(); }), true);
}  // namespace

GpuEngine& gpu_engine() {
  sim::build_all_engines();
  return the_gpu_engine();
}

GpuStats simulate_launch(const GpuConfig& config, WarpInstructionSource& source, const ProgressFn& progress) {
  return gpu_engine().run(config, source, progress);
}

GpuStats GpuEngine::run(const GpuConfig& config, WarpInstructionSource& source, const ProgressFn& progress) {
  LOOM_CHECK(phase_ == Phase::idle, "simt gpu engine", "run() while a launch is active");
  model_.begin(config, source);  // throws before anything is scheduled
  progress_ = &progress;
  error_ = nullptr;
  origin_ = sim::now_cycles();
  phase_ = Phase::running;
  kick_.notify(sc_core::SC_ZERO_TIME);
  sim::run_until_idle();
  progress_ = nullptr;
  if (error_) {
    phase_ = Phase::idle;
    std::rethrow_exception(error_);
  }
  LOOM_CHECK(phase_ == Phase::idle, "simt gpu engine", "SystemC went idle with the launch unfinished");
  return model_.finish();
}

void GpuEngine::report() {
  if (!progress_ || !*progress_) return;
  (*progress_)(LaunchProgress{model_.next_cycle(), model_.ctas_retired(), model_.ctas_total(),
                              model_.warp_instructions()});
}

void GpuEngine::step() {
  const int64_t now = sim::now_cycles() - origin_;
  if (phase_ == Phase::draining) {  // SystemC time has reached the kernel's end
    phase_ = Phase::idle;
    return;
  }
  if (phase_ != Phase::running) return;
  try {
    const bool done = model_.run_until(now + kSyncQuantumCycles);
    if (!done && model_.warp_instructions() > kMaxSimulatedWarpInstructions) {
      // Shipped kernels are estimated up front (launch_limits.h); this stops the ones that
      // cannot be: custom kernels, and any kernel that never terminates.
      throw InputError("", "launch",
                       "a launch that ends within 2.5e9 warp instructions, loom's limit per run; this one has "
                       "executed " + std::to_string(model_.warp_instructions()) + " in " +
                           std::to_string(model_.next_cycle()) + " cycles and is not done (a kernel that never ends?)");
    }
    if (done) {
      report();
      const int64_t end = model_.end_cycle();
      if (end > now) {
        phase_ = Phase::draining;
        next_trigger(sim::cycles(end - now));
      } else {
        phase_ = Phase::idle;
      }
      return;
    }
    report();
    next_trigger(sim::cycles(model_.next_cycle() - now));
  } catch (...) {
    // Leave the kernel with nothing scheduled; run() rethrows once sc_start returns.
    error_ = std::current_exception();
    model_.abandon();
    phase_ = Phase::idle;
  }
}

}  // namespace loom::simt
