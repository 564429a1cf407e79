#include "sim/systemc_context.h"

#include <cmath>
#include <cstdlib>
#include <vector>

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

namespace {
std::vector<void (*)()>& engine_builders() {
  static std::vector<void (*)()> builders;
  return builders;
}
}  // namespace

void register_engine(void (*build)()) { engine_builders().push_back(build); }

// Builds every engine registered so far that is not built yet. A caller may run during
// static initialization (a test file elaborating an engine up front), before the other
// engines' files have registered; those are built by the next call, at the latest by
// run_until_idle() just before the kernel first starts.
void build_all_engines() {
  static size_t built = 0;
  prepare_systemc();
  std::vector<void (*)()>& builders = engine_builders();
  while (built < builders.size()) builders[built++]();  // counted first: each builder's accessor calls back here
}

void run_until_idle() {
  build_all_engines();
  sc_core::sc_start();
}

int64_t now_cycles() {
  return static_cast<int64_t>(std::llround(sc_core::sc_time_stamp().to_seconds() * 1e9));
}

}  // namespace loom::sim
