// `loom train` from Python: the same run_training as the CLI (apps/train_command.h), its
// options given as keyword arguments (python/loom/__init__.py: train).
#pragma once

#include <pybind11/pybind11.h>

namespace loom::python {

void add_train_bindings(pybind11::module_& m);

}  // namespace loom::python
