#include "python/bindings/train_bindings.h"

#include <pybind11_json/pybind11_json.hpp>

#include <mutex>

#include "apps/train_command.h"
#include "python/bindings/simulation_lock.h"
#include "sim/json_reader.h"

namespace py = pybind11;

namespace loom::python {

namespace {

// The CLI's arguments from the keyword arguments, read as strictly as a config file: a
// misspelled option is an InputError naming it.
TrainArgs train_args_of(const Json& options) {
  JsonReader r(options, "", "");
  TrainArgs a;
  a.system = r.string("system", "");
  a.arch = r.string("arch", "");
  a.workload = r.string("workload", "");
  a.batch = r.integer("batch", 0);
  a.parallel = r.string("parallel", a.parallel);
  a.devices = static_cast<int>(r.non_negative_integer("devices", 0));
  a.precision = r.string("precision", a.precision);
  a.optimizer = r.string("optimizer", a.optimizer);
  a.fuse = r.boolean("fuse", false);
  a.layout = r.string("layout", a.layout);
  a.no_loss_scaling = !r.boolean("loss_scaling", true);
  a.all_reduce = r.string("all_reduce", a.all_reduce);
  a.bucket_mib = r.number("bucket_mib", a.bucket_mib);
  a.no_overlap = !r.boolean("overlap", true);
  a.micro_batches = static_cast<int>(r.non_negative_integer("micro_batches", 0));
  a.no_launch_overhead = !r.boolean("launch_overhead", true);
  a.cuda_graphs = r.boolean("cuda_graphs", false);
  a.loader_rate = r.number("loader_rate", -1);
  a.fidelity = r.string("fidelity", a.fidelity);
  a.no_effects = !r.boolean("effects", true);
  a.out = r.string("out", "");
  r.finish();
  return a;
}

Json train_py(const Json& options) {
  const TrainArgs args = train_args_of(options);
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(simulation_lock());  // --fidelity cycle runs SystemC
  const TrainOutcome out = run_training(args);
  if (!args.out.empty()) write_train_files(args.out, out);
  return out.report;
}

}  // namespace

void add_train_bindings(py::module_& m) {
  m.def("train", &train_py, py::arg("options"));
}

}  // namespace loom::python
