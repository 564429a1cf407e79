// `loom validate`: simulates every launch a measurement file records, with the same kernel,
// sizes and launch, on a GPU config, and compares: per run (measured vs simulated time),
// per kernel and overall (mean absolute percentage error, Pearson correlation), per
// microbenchmark (the same probe on the model), and against published figures. The targets
// (docs/validation.md) are checked here so the report says whether each is met.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "validate/measurements.h"

namespace loom::validate {

// The simulation rate a budget is counted at: simulated warp instructions per second of
// budget. A fixed rate keeps the choice of runs deterministic. It is about the SIMT model's
// rate on one core for most kernels; the WMMA GEMM runs at about a third of it
// (docs/performance.md), so its runs can take up to about three times their estimate.
inline constexpr double kBudgetWarpInstructionsPerSecond = 4e6;

struct ValidationOptions {
  // A run estimated (from smaller sizes of the same kernel) to simulate more warp instructions
  // than this many seconds at kBudgetWarpInstructionsPerSecond is skipped and reported as
  // such; 0: no limit.
  double budget_s = 120;
  bool allow_device_mismatch = false;  // else a config of another GPU model is an InputError
  std::vector<std::string> kernels;    // only these kernels (empty: all)
  uint64_t seed = 1;
  std::function<void(const std::string&)> progress;  // one line per simulated launch
};

struct RunComparison {
  KernelRun measured;
  bool simulated = false;
  std::string skipped;     // why it was not simulated ("" when it was)
  int64_t cycles = 0;
  double simulated_us = 0;  // kernel cycles at the config's clock, plus the file's launch overhead
  double error = 0;         // (simulated - measured) / measured, of the median
  double wall_s = 0;        // host seconds the simulation took
};

struct Agreement {
  std::string group;  // a kernel name, "gemm" or "all"
  int points = 0;
  std::optional<double> mape;     // percent
  std::optional<double> pearson;  // of the times
};

struct MicrobenchmarkComparison {
  std::string name;
  std::string unit;
  double measured = 0;
  double simulated = 0;  // NaN when the probe gave no figure
  double error = 0;
  std::string source;  // published files: the source id
  std::string note;
};

struct FigureComparison {
  PublishedFigure published;
  std::optional<double> loom;
  std::string why_not;  // when loom has no value
  double error = 0;     // against the nearest end of the published range (0 inside it)
};

struct Target {
  std::string name;  // "GEMM kernels: mean absolute error"
  std::string goal;  // "<= 10%"
  std::optional<double> achieved;
  bool met = false;
};

struct ValidationReport {
  std::string config_name, config_file;
  MeasurementFile measured;
  std::vector<std::string> warnings;
  std::vector<RunComparison> runs;
  std::vector<Agreement> agreement;  // per kernel, then "gemm", then "all"
  std::vector<MicrobenchmarkComparison> microbenchmarks;
  std::vector<FigureComparison> figures;
  std::vector<Target> targets;
  double wall_s = 0;
};

// InputError when the config is of another GPU model than the measured device (unless
// options.allow_device_mismatch) or a --kernels name is not in the file.
ValidationReport run_validation(const simt::GpuConfig& config, const MeasurementFile& measured,
                                const ValidationOptions& options);

}  // namespace loom::validate
