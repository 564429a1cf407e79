#include "python/bindings/sweep_bindings.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include <atomic>
#include <csignal>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "apps/report_command.h"
#include "python/bindings/simulation_lock.h"
#include "sim/error.h"
#include "sweep/merge.h"
#include "sweep/sweep_runner.h"

namespace py = pybind11;

namespace loom::python {

namespace {

std::atomic<bool> g_stop{false};
extern "C" void request_stop(int) { g_stop.store(true); }

// While a sweep runs on the main thread, Ctrl-C (or a Jupyter "interrupt kernel") and
// SIGTERM stop it the way they stop `loom sweep`: no new points, finished ones kept.
// Python's own handlers come back afterwards.
class StopOnSignals {
 public:
  StopOnSignals() {
    g_stop.store(false);
    const py::module_ threading = py::module_::import("threading");
    active_ = threading.attr("current_thread")().is(threading.attr("main_thread")());
    if (!active_) return;
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopOnSignals() {
    if (!active_) return;
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  bool active_ = false;
  struct sigaction old_int_ {}, old_term_ {};
};

Json outcome_to_json(const SweepOutcome& r) {
  return {{"planned", r.planned},   {"done", r.done},   {"feasible", r.feasible},         {"errors", r.errors},
          {"front", r.front},       {"resimulated", r.resimulated}, {"interrupted", r.interrupted},
          {"warning", r.warning}};
}

// A Python executor(requests, on_reply, stopped, tick) -> bool as a PointExecutor. It is
// called on the sweep's thread with the GIL released, so it takes the GIL back.
PointExecutor python_executor(py::function executor) {
  return [executor](const std::vector<std::string>& requests, const WorkerPool::OnReply& on_reply,
                    const std::atomic<bool>& stop, const std::function<void()>& tick) {
    py::gil_scoped_acquire acquire;
    const py::cpp_function reply([&on_reply](size_t position, const std::string& text, bool ok) {
      on_reply(position, text, ok);
    });
    const py::cpp_function stopped([&stop] { return stop.load(); });
    const py::cpp_function ticked([&tick] { tick(); });
    return executor(requests, reply, stopped, ticked).cast<bool>();
  };
}

Json run_sweep_py(const std::string& spec_file, const std::string& out_dir, int jobs, bool resume,
                  const std::string& shard, bool quiet, const py::object& executor) {
  SweepRunOptions o;
  o.spec_file = spec_file;
  o.out_dir = out_dir;
  o.jobs = jobs;
  o.resume = resume;
  o.quiet = quiet;
  if (!shard.empty()) o.shard = parse_shard(shard);
  if (!executor.is_none()) o.executor = python_executor(executor.cast<py::function>());
  StopOnSignals signals;
  SweepOutcome r;
  {
    py::gil_scoped_release release;
    r = run_sweep(o, g_stop);
  }
  if (r.interrupted) {
    PyErr_SetString(PyExc_KeyboardInterrupt,
                    ("sweep interrupted: " + std::to_string(r.done) + " of " + std::to_string(r.planned) +
                     " points finished and kept in " + out_dir + "/points.jsonl; resume with resume=True")
                        .c_str());
    throw py::error_already_set();
  }
  write_report_html(out_dir);
  if (!r.no_feasible.empty()) throw InputError(spec_file, "constraints", r.no_feasible);
  return outcome_to_json(r);
}

Json merge_py(const std::vector<std::string>& shard_dirs, const std::string& out_dir, const std::string& spec_file) {
  MergeOptions o{shard_dirs, out_dir, spec_file};
  SweepOutcome r;
  {
    py::gil_scoped_release release;
    r = merge_sweeps(o);
  }
  write_report_html(out_dir);
  if (!r.no_feasible.empty()) throw InputError(out_dir, "constraints", r.no_feasible);
  return outcome_to_json(r);
}

// A worker evaluates many points of one spec: the spec and its design space are loaded once
// per process and kept while the file's fingerprint stays the same.
struct LoadedSpec {
  SweepSpec spec;
  std::unique_ptr<DesignSpace> space;
};

std::string evaluate_remote(const std::string& spec_file, const std::string& fingerprint, const std::string& request) {
  static std::mutex cache_lock;
  static std::map<std::string, std::shared_ptr<LoadedSpec>> cache;
  std::shared_ptr<LoadedSpec> loaded;
  {
    std::lock_guard<std::mutex> lock(cache_lock);
    auto& slot = cache[spec_file];
    if (!slot || slot->spec.fingerprint != fingerprint) {
      auto fresh = std::make_shared<LoadedSpec>();
      fresh->spec = load_sweep_spec(spec_file);
      if (fresh->spec.fingerprint != fingerprint) {
        throw InputError(spec_file, "fingerprint",
                         "the spec the sweep was started with; this worker reads a different (edited?) file, "
                         "fingerprint " + fresh->spec.fingerprint + " instead of " + fingerprint);
      }
      fresh->space = std::make_unique<DesignSpace>(fresh->spec);
      slot = fresh;
    }
    loaded = slot;
  }
  std::lock_guard<std::mutex> lock(simulation_lock());
  return evaluate_point_request(loaded->spec, *loaded->space, request);
}

}  // namespace

void add_sweep_bindings(py::module_& m) {
  m.def("run_sweep", &run_sweep_py, py::arg("spec_file"), py::arg("out_dir"), py::arg("jobs"), py::arg("resume"),
        py::arg("shard"), py::arg("quiet"), py::arg("executor"));
  m.def("merge", &merge_py, py::arg("shard_dirs"), py::arg("out_dir"), py::arg("spec_file"));
  m.def("spec_fingerprint", [](const std::string& spec_file) { return load_sweep_spec(spec_file).fingerprint; },
        py::arg("spec_file"));
  m.def(
      "evaluate_point_request",
      [](const std::string& spec_file, const std::string& fingerprint, const std::string& request) {
        py::gil_scoped_release release;
        return evaluate_remote(spec_file, fingerprint, request);
      },
      py::arg("spec_file"), py::arg("fingerprint"), py::arg("request"));
}

}  // namespace loom::python
