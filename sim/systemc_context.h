// The one SystemC simulation context of a process, wrapped in one place. SystemC allows a
// single context per process and no new modules once simulation started, so engines are
// built once (on first use) and reused for every job; each job runs the kernel until no
// event is pending. Time axis: one SystemC nanosecond is one cycle of the simulated
// clock; conversion to seconds uses the architecture's clock_hz at the reporting edge.
#pragma once

#include <cstdint>

#include <systemc>

namespace loom::sim {

// Call before constructing the first module: silences the banner and chatty warnings.
void prepare_systemc();

// SystemC admits no new module once simulation has started, yet one process may run
// several models (a Python session runs a systolic array, then a GPU). So each engine
// registers its builder here from a static initializer, and its accessor calls
// build_all_engines(), which builds every builder registered since its last call.
void register_engine(void (*build)());
void build_all_engines();

// Builds any engine registered but not yet built (a first use during static initialisation
// can come before every file has registered), then runs the kernel until no event is
// pending: so every linked engine exists before the first sc_start, whatever the order.
void run_until_idle();

inline sc_core::sc_time cycles(int64_t n) {
  return sc_core::sc_time(static_cast<double>(n), sc_core::SC_NS);
}
int64_t now_cycles();

}  // namespace loom::sim
