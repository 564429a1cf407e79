// Sweeps from Python: `run_sweep` (forked worker processes, or any executor the caller
// gives, such as the Dask client of python/loom/dask_executor.py), `merge`, and the one
// function a remote worker runs for a point.
#pragma once

#include <pybind11/pybind11.h>

namespace loom::python {

void add_sweep_bindings(pybind11::module_& m);

}  // namespace loom::python
