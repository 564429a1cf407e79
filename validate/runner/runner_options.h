// The runner's command line:
//   loom-gpu-runner [--out DIR] [--quick] [--repeats N] [--warmups N] [--device I]
//                   [--kernels a,b] [--seed S] [--sm-clock-mhz MHZ] [--dry-run]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loom::gpu_runner {

struct RunnerOptions {
  std::string out_dir = std::string(LOOM_SOURCE_DIR) + "/validate/data";
  bool quick = false;
  int repeats = 20;
  int warmups = 3;
  int device = 0;
  std::vector<std::string> kernels;  // empty: everything
  uint64_t seed = 1;                 // `loom gpu`'s default, so both fill buffers alike
  double sm_clock_mhz = 0;           // 0: the device's peak clock
  bool dry_run = false;
};

// Parses the command line into `options`. Returns -1 to go on, or the exit code to stop
// with: 0 after --help / --version (printed to stdout), 2 after a usage error (printed to
// stderr).
int parse_runner_options(int argc, char** argv, RunnerOptions& options);

}  // namespace loom::gpu_runner
