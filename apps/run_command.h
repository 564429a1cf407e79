// `loom run`: one architecture, one network, the cycle-level model; prints the per-layer
// table and writes report.json, layers.csv and resolved_config.json.
#pragma once

#include <string>

namespace CLI { class App; }

namespace loom {

struct RunArgs {
  std::string arch;      // empty: the embedded default architecture
  std::string workload;  // empty: the embedded default network (ResNet-50)
  std::string out = "loom-out";
  bool scalesim_compat = false;
  bool quiet = false;
};

void add_run_command(CLI::App& app, RunArgs& args);
int run_command(const RunArgs& args);  // returns the exit code

}  // namespace loom
