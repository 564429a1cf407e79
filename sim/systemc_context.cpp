#include "sim/systemc_context.h"

#include <cmath>
#include <cstdlib>

// libsystemc references sc_main; loom has its own main() and drives the kernel through
// run_until_idle(), so this entry point is never called.
int sc_main(int, char*[]) { return 0; }

namespace loom::sim {

void prepare_systemc() {
  static bool done = false;
  if (done) return;
  done = true;
  setenv("SYSC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  // Starting the kernel with nothing scheduled is normal between jobs here.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

void run_until_idle() { sc_core::sc_start(); }

int64_t now_cycles() {
  return static_cast<int64_t>(std::llround(sc_core::sc_time_stamp().to_seconds() * 1e9));
}

}  // namespace loom::sim
