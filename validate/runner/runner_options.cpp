#include "validate/runner/runner_options.h"

#include <cstdio>

#include <CLI/CLI.hpp>

namespace loom::gpu_runner {

int parse_runner_options(int argc, char** argv, RunnerOptions& options) {
  CLI::App app{
      "loom-gpu-runner: times loom's shipped CUDA kernels on this machine's GPU (a size sweep,\n"
      "the microbenchmark probes, cuBLAS GEMM references), checks each kernel's output against\n"
      "loom's CPU reference and writes <out>/<gpu>-<date>.json for `loom validate`. Every timed\n"
      "launch starts with a flushed L2. See docs/validation.md, \"The GPU runner\".\n"
      "Exit codes: 0 done, 1 CUDA or internal error (finished runs kept in\n"
      "<gpu>-<date>.partial.json), 2 bad arguments, 3 no CUDA device, 130 interrupted.\n"};
  app.set_version_flag("--version", std::string("loom-gpu-runner ") + LOOM_VERSION);
  app.add_option("--out", options.out_dir, "Directory for the measurement file (created if needed)")
      ->capture_default_str();
  app.add_flag("--quick", options.quick, "The smaller half of every sweep: a smoke run");
  app.add_option("--repeats", options.repeats, "Timed launches per run (each after an L2 flush)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--warmups", options.warmups,
                 "Untimed launches before them (at least 1: a kernel's first launch loads its code)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--device", options.device, "CUDA device index (as CUDA_VISIBLE_DEVICES leaves them)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--kernels", options.kernels,
                 "Only these shipped kernels (sweep runs and the probes that launch them), comma-separated; "
                 "'cublas' selects the cuBLAS references (default: everything)")
      ->delimiter(',');
  app.add_option("--seed", options.seed, "Seed of the buffers' random contents (as `loom gpu --seed`)")
      ->capture_default_str();
  app.add_option("--sm-clock-mhz", options.sm_clock_mhz,
                 "The SM clock the GPU was locked at (nvidia-smi -lgc): latencies are converted to cycles at it "
                 "(default: the device's peak clock)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--dry-run", options.dry_run,
               "Print the planned runs (sizes, launches, device memory) and check them against the kernels; "
               "runs nothing on the GPU (without a GPU it plans for a nominal H100-class device)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "loom-gpu-runner: error: %s (see loom-gpu-runner --help)\n", e.what());
    return 2;
  }
  return -1;
}

}  // namespace loom::gpu_runner
