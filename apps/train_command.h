// `loom train`: how many samples/s would this network train at on these devices, linked like
// this? Loads a system (--system FILE) or one device (--arch FILE) and a network (default:
// the embedded ResNet-50), estimates one training step (training/train_estimate.h), prints the
// throughput, the step-time breakdown, scaling, memory fit and what each switch costs, and
// writes report.json, kernels.csv, timeline.csv and report.html (docs/training.md).
//
// Compute and present are split: run_training() computes and renders everything and writes
// nothing (the Python bindings call it); train_command() prints and writes the files, each
// atomically and report.json last, only once the estimate succeeded.
#pragma once

#include <cstdint>
#include <string>

#include "sim/json_reader.h"
#include "training/train_estimate.h"

namespace CLI { class App; }

namespace loom {

struct TrainArgs {
  std::string system;      // a system file (configs/systems/), or
  std::string arch;        // one device: any loom architecture file; exactly one of the two
  std::string workload;    // empty: the embedded default network (ResNet-50)
  int64_t batch = 0;       // global batch per step; required, > 0
  std::string parallel = "data";       // data | tensor | pipeline
  int devices = 0;                     // the system's first N devices; 0 = all
  std::string precision = "mixed";     // kPrecisionPolicyNames
  std::string optimizer = "sgd";       // sgd | adam
  bool fuse = false;
  std::string layout = "nhwc";         // nhwc | nchw
  bool no_loss_scaling = false;
  std::string all_reduce = "ring";     // ring | tree
  double bucket_mib = 25;              // data parallel: gradient bucket (MiB)
  bool no_overlap = false;
  int micro_batches = 0;               // pipeline: 0 = the estimator's default
  bool no_launch_overhead = false;
  bool cuda_graphs = false;
  double loader_rate = -1;             // samples/s per node; < 0 = the system's host figure, 0 = unlimited
  std::string fidelity = "analytic";   // analytic | cycle
  bool no_effects = false;
  std::string out = "loom-out";
  bool quiet = false;
};

void add_train_command(CLI::App& app, TrainArgs& args);

// The estimator's options from the command line's; InputError naming the option on a bad
// value (unknown name, non-positive batch, ...).
TrainOptions train_options_of(const TrainArgs& args);

// Everything `loom train` prints and writes, computed and rendered, nothing written yet.
struct TrainOutcome {
  TrainResult result;
  Json report;                 // report.json
  std::string kernels_csv, timeline_csv, html;
  std::string summary;         // the terminal text (without the "reports:" line)
  std::string quiet_line;      // the --quiet line
};

// InputError on bad options or inputs (exactly one of system/arch, the batch, a model that
// fits no device, ...).
TrainOutcome run_training(const TrainArgs& args);
// report.json, kernels.csv, timeline.csv and report.html in `out_dir`, each atomically,
// report.json last (its presence means the set is complete).
void write_train_files(const std::string& out_dir, const TrainOutcome& outcome);
int train_command(const TrainArgs& args);  // returns the exit code

}  // namespace loom
