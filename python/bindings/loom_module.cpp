// The `loom._loom` extension: the C++ entry points the CLI uses, with results as plain
// Python dicts and lists (nlohmann::json through pybind11_json). The `loom` package
// (python/loom/) wraps it with defaults, shipped-file names, DataFrames and Dask.
// Every call that computes releases the GIL; calls that may run SystemC also hold the
// process's simulation lock (simulation_lock.h).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include <algorithm>
#include <mutex>

#include "apps/gpu_command.h"
#include "apps/map_command.h"
#include "apps/report_command.h"
#include "apps/run_command.h"
#include "apps/validate_command.h"
#include "apps/validate_report.h"
#include "arch/area_model.h"
#include "arch/architecture.h"
#include "arch/roofline.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "mapper/network_evaluation.h"
#include "python/bindings/layer_json.h"
#include "python/bindings/simulation_lock.h"
#include "python/bindings/sweep_bindings.h"
#include "python/bindings/train_bindings.h"
#include "sim/error.h"

namespace py = pybind11;

namespace loom::python {

std::mutex& simulation_lock() {
  static std::mutex lock;
  return lock;
}

namespace {

// The named layers of `network`, in the order asked; InputError naming the missing one.
Network subset(const Network& network, const std::vector<std::string>& names) {
  Network out = network;
  out.layers.clear();
  for (const std::string& name : names) {
    const auto it = std::find_if(network.layers.begin(), network.layers.end(),
                                 [&](const Layer& l) { return l.name == name; });
    if (it == network.layers.end()) {
      throw InputError(network.source_file, "layers",
                       "a layer name of " + network.name + "; there is no layer '" + name + "' (" +
                           std::to_string(network.layers.size()) + " layers: " + layer_name_preview(network) + ")");
    }
    out.layers.push_back(*it);
  }
  return out;
}

// The mapper options given by name from Python, as MapperArgs (which the CLI fills).
MapperArgs mapper_args(const std::string& objective, const std::string& search, int64_t budget, uint64_t seed,
                       int threads, const std::string& dataflow, const std::vector<std::string>& given) {
  MapperArgs a;
  if (!objective.empty()) a.objective = objective;
  if (!search.empty()) a.search = search;
  a.budget = budget;
  a.seed = seed;
  a.threads = threads;
  a.dataflow = dataflow;
  a.given = given;
  return a;
}

Json run_py(const Architecture& arch, const Network& network, const std::string& precision, bool scalesim_compat,
         const MapperArgs& mapper, const std::string& out_dir) {
  RunArgs args;
  args.precision = precision;
  args.scalesim_compat = scalesim_compat;
  args.quiet = true;
  args.mapper = mapper;
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(simulation_lock());
  RunOutcome out = run_network(arch, network, args, {});
  if (!out_dir.empty()) write_run_files(out_dir, out.report, out.evaluation, out.layers_csv, out.resolved_config);
  out.report["summary"] = evaluation_to_json(out.evaluation);
  return out.report;
}

Json evaluate_py(const Architecture& arch, const Network& network, const std::string& fidelity,
              const std::string& precision, const std::string& dataflow, uint64_t seed) {
  if (fidelity != "analytic" && fidelity != "cycle") {
    throw InputError("", "fidelity", "\"analytic\" or \"cycle\"; got \"" + fidelity + "\"");
  }
  if (precision != "fp16" && precision != "fp32") {
    throw InputError("", "precision", "\"fp16\" (tensor cores) or \"fp32\"; got \"" + precision + "\"");
  }
  EvaluationOptions options;
  options.gpu_precision = precision;
  options.dataflow = dataflow;
  options.seed = seed;
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(simulation_lock());
  return evaluation_to_json(
      evaluate_network(arch, network, fidelity == "cycle" ? Fidelity::cycle : Fidelity::analytic, options));
}

Json map_layer_py(const Architecture& arch, const Network& network, const std::string& layer, const std::string& mapping,
               const MapperArgs& mapper) {
  MapArgs args;
  args.mapping = mapping;
  args.mapper = mapper;
  const Network one = subset(network, {layer});
  py::gil_scoped_release release;
  return map_one_layer(args, arch, ChosenLayer{one.layers.front(), network.name, network.source_file}).report;
}

Json gpu_kernel(const Architecture& arch, const std::string& kernel, const std::map<std::string, int64_t>& sizes,
                uint64_t seed, int registers, bool check, const std::string& issue_order, bool execute_at_issue) {
  GpuArgs args;
  args.issue_order = issue_order;
  args.execute_at_issue = execute_at_issue;
  args.kernel = kernel;
  if (simt::is_catalog_kernel(kernel)) args.sizes = simt::format_size_list(kernel, sizes);
  args.seed = seed;
  args.registers = registers;
  args.no_check = !check;
  args.quiet = true;
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(simulation_lock());
  const GpuLaunchOutcome outcome = run_gpu_launch(args, arch);
  return gpu_launch_to_json(outcome, arch.gpu());
}

Json kernels() {
  Json list = Json::array();
  for (const simt::KernelInfo& k : simt::kernel_catalog()) {
    Json sizes = Json::object();
    for (const auto& [name, value] : k.size_defaults) sizes[name] = value;
    list.push_back({{"name", k.name}, {"summary", k.summary}, {"sizes", sizes}});
  }
  return list;
}

Json validate_gpu(const Architecture& arch, const std::string& measured_file, double budget_s,
                  const std::vector<std::string>& kernel_names, uint64_t seed, bool allow_device_mismatch) {
  validate::ValidationOptions options;
  options.budget_s = budget_s;
  options.kernels = kernel_names;
  options.seed = seed;
  options.allow_device_mismatch = allow_device_mismatch;
  py::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(simulation_lock());
  return validation_to_json(validate_gpu_model(arch, measured_file, options));
}

}  // namespace

}  // namespace loom::python

PYBIND11_MODULE(_loom, m) {
  using namespace loom;
  using namespace loom::python;
  m.doc() = "loom's C++ core; use the `loom` package, which wraps it (docs/python.md)";
  m.attr("version") = LOOM_VERSION;
  m.attr("source_dir") = LOOM_SOURCE_DIR;

  // InputError keeps the CLI's message ("FILE: FIELD: expected ...") and its three parts.
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      py::object error = py::reinterpret_borrow<py::object>(input_error.ptr())(e.what());
      error.attr("file") = e.file();
      error.attr("field") = e.field();
      error.attr("expected") = e.expected();
      PyErr_SetObject(input_error.ptr(), error.ptr());
    }
  });

  py::class_<Architecture>(m, "Architecture", "An architecture of any kind: systolic, hierarchy or gpu")
      .def_property_readonly("name", &Architecture::name)
      .def_property_readonly("kind", &Architecture::kind_name)
      .def_property_readonly("file", &Architecture::source_file)
      .def("to_dict", &Architecture::to_json, "The fully resolved config (as resolved_config.json)")
      .def("roofs", [](const Architecture& a) { return roofs_to_json(roofs_of(a)); },
           "Compute roofs (FLOP/s) and bandwidth roofs (bytes/s) per memory level")
      .def("area", [](const Architecture& a) { return area_to_json(area_of(a)); },
           "First-order silicon area by component (docs/area-model.md)")
      .def("__repr__", [](const Architecture& a) {
        return "<loom.Architecture " + a.name() + " (" + a.kind_name() + ", " + a.source_file() + ")>";
      });
  m.def("load_architecture", &load_architecture, py::arg("path"));
  m.def("parse_architecture", &parse_architecture, py::arg("json"), py::arg("file"), py::arg("base_dir"));
  m.def("default_architecture", [] { return load_arch_or_default(""); });

  py::class_<Network>(m, "Network", "A network: an ordered list of layers")
      .def_readonly("name", &Network::name)
      .def_readonly("file", &Network::source_file)
      .def_readonly("batch", &Network::batch)
      .def_property_readonly("macs", &Network::total_macs)
      .def("__len__", [](const Network& n) { return n.layers.size(); })
      .def("layer_names", [](const Network& n) {
        std::vector<std::string> names;
        for (const Layer& l : n.layers) names.push_back(l.name);
        return names;
      })
      .def("layers", [](const Network& n) { return network_to_json(n)["layers"]; },
           "Each layer as a dict: shape, MACs, GEMM view, operand element counts")
      .def("to_dict", &network_to_json)
      .def("subset", &subset, py::arg("names"), "A network of the named layers, in the order given")
      .def("__repr__", [](const Network& n) {
        return "<loom.Network " + n.name + " (" + std::to_string(n.layers.size()) + " layers, " + n.source_file + ")>";
      });
  m.def("load_workload", &load_workload, py::arg("path"));
  m.def("parse_network", &parse_network_json, py::arg("json"), py::arg("file"));
  m.def("default_workload", [] { return load_network_or_default(""); });

  py::class_<MapperArgs>(m, "MapperOptions");
  m.def("mapper_options", &mapper_args, py::arg("objective"), py::arg("search"), py::arg("budget"), py::arg("seed"),
        py::arg("threads"), py::arg("dataflow"), py::arg("given"));
  m.def("run", &run_py, py::arg("arch"), py::arg("network"), py::arg("precision"), py::arg("scalesim_compat"),
        py::arg("mapper"), py::arg("out_dir"));
  m.def("evaluate", &evaluate_py, py::arg("arch"), py::arg("network"), py::arg("fidelity"), py::arg("precision"),
        py::arg("dataflow"), py::arg("seed"));
  m.def("map_layer", &map_layer_py, py::arg("arch"), py::arg("network"), py::arg("layer"), py::arg("mapping"),
        py::arg("mapper"));
  m.def("gpu_kernel", &gpu_kernel, py::arg("arch"), py::arg("kernel"), py::arg("sizes"), py::arg("seed"),
        py::arg("registers"), py::arg("check"), py::arg("issue_order"), py::arg("execute_at_issue"));
  m.def("kernels", &kernels);
  m.def("validate", &validate_gpu, py::arg("arch"), py::arg("measured_file"), py::arg("budget_s"), py::arg("kernels"),
        py::arg("seed"), py::arg("allow_device_mismatch"));
  m.def("write_report_html", [](const std::string& dir) { return write_report_html(dir); }, py::arg("dir"));
  add_sweep_bindings(m);
  add_train_bindings(m);
}
