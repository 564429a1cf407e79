// `loom run`: one architecture, one network; prints the per-layer table and writes
// report.json, layers.csv, resolved_config.json and report.html. Each finished layer is
// kept in OUT/run.checkpoint.jsonl until the reports are written, so an interrupted run
// resumes with --resume (apps/run_checkpoint.h). A systolic architecture runs on the
// cycle-level model; a "kind": "hierarchy" one is mapped layer by layer (mapper/) and
// priced with the analytic cost model; a "kind": "gpu" one runs every layer through the
// shipped CUDA kernels on the SIMT model (arch/simt/kernels/network_on_gpu.h).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "apps/map_command.h"
#include "mapper/network_evaluation.h"

namespace CLI { class App; }

namespace loom {

class RunCheckpoint;

struct RunArgs {
  std::string arch;      // empty: the embedded default architecture
  std::string workload;  // empty: the embedded default network (ResNet-50)
  std::string out = "loom-out";
  bool scalesim_compat = false;
  std::string precision;  // gpu architectures: fp16 (tensor cores, the default) or fp32
  bool quiet = false;
  bool resume = false;  // continue from OUT/run.checkpoint.jsonl (apps/run_checkpoint.h)
  MapperArgs mapper;  // hierarchy architectures only
};

void add_run_command(CLI::App& app, RunArgs& args);
int run_command(const RunArgs& args);  // returns the exit code

// What `loom run` computes, before anything is printed or written: the report.json body
// (without its "summary", which write_run_files adds from `evaluation`), layers.csv, the
// resolved config, the terminal table and its headline. The Python bindings call it too.
struct RunOutcome {
  Json report;
  NetworkEvaluation evaluation;
  std::string layers_csv, resolved_config;
  std::string table, headline;
};
// `progress(done, total)` is called per layer (may be empty). InputError on bad options.
// With a `checkpoint`, layers it holds are taken from it instead of being simulated, and
// each newly finished layer is kept in it.
RunOutcome run_network(const Architecture& arch, const Network& network, const RunArgs& args,
                       const std::function<void(size_t, size_t)>& progress, RunCheckpoint* checkpoint = nullptr);

}  // namespace loom
