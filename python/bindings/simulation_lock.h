// SystemC allows one simulation context per process (sim/systemc_context.h), so calls that
// may simulate hold this lock: Python threads (a Jupyter kernel's, or a Dask worker with
// several threads) then take turns instead of corrupting the kernel. The GIL is released
// while they run, so other Python threads keep going.
#pragma once

#include <mutex>

namespace loom::python {

std::mutex& simulation_lock();

}  // namespace loom::python
