// `loom validate --arch configs/<gpu>.json --measured validate/data/<file>.json`: simulates
// every launch the measurement file records and compares loom with the real GPU (or with the
// published figures the file holds). Prints the comparison and writes validation.json and
// report.html to --out. Exit 0 when the comparison ran (1 with --require-targets when a
// target is missed), 2 on bad input.
#pragma once

#include <string>

#include "arch/architecture.h"
#include "validate/comparison.h"

namespace CLI { class App; }

namespace loom {

struct ValidateArgs {
  std::string arch;
  std::string measured;
  std::string out = "loom-out";
  std::string kernels;  // comma-separated subset
  double budget_s = 120;
  uint64_t seed = 1;
  bool allow_device_mismatch = false;
  bool require_targets = false;
  bool quiet = false;
};

void add_validate_command(CLI::App& app, ValidateArgs& args);
int validate_command(const ValidateArgs& args);

// The comparison `loom validate` prints: every launch in `measured_file` simulated on `arch`.
// InputError unless `arch` is a GPU, or for a bad measurement file. The bindings call it too.
validate::ValidationReport validate_gpu_model(const Architecture& arch, const std::string& measured_file,
                                             const validate::ValidationOptions& options);

}  // namespace loom
