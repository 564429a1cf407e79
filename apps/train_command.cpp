#include "apps/train_command.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>

#include "apps/map_command.h"
#include "apps/train_report.h"
#include "arch/architecture.h"
#include "arch/system/system_config.h"
#include "sim/error.h"
#include "sim/text_file.h"

namespace loom {

void add_train_command(CLI::App& app, TrainArgs& args) {
  CLI::App* t = app.add_subcommand(
      "train", "Estimate training throughput (samples/s) of a network on one or many devices, and write reports");
  t->add_option("--system", args.system,
                "System file: devices, links, switches and host (e.g. configs/systems/dgx1_v100.json)");
  t->add_option("--arch", args.arch, "One device instead of a system: any loom architecture file (e.g. configs/v100.json)");
  t->add_option("--workload", args.workload, "Network: loom .json or SCALE-Sim topology .csv (default: embedded ResNet-50)");
  t->add_option("--batch", args.batch, "Global batch: samples per training step (required)");
  t->add_option("--parallel", args.parallel, "Parallelism: data, tensor or pipeline")->capture_default_str();
  t->add_option("--devices", args.devices, "Use the system's first N devices (default: all)");
  t->add_option("--precision", args.precision, std::string("Precision policy: ") + kPrecisionPolicyNames)
      ->capture_default_str();
  t->add_option("--optimizer", args.optimizer, "Optimizer: sgd (with momentum) or adam")->capture_default_str();
  t->add_flag("--fuse", args.fuse, "Fuse element-wise post-ops into the producing kernel's epilogue");
  t->add_option("--layout", args.layout, "Activation layout: nhwc or nchw (tensor-core math transposes NCHW)")
      ->capture_default_str();
  t->add_flag("--no-loss-scaling", args.no_loss_scaling, "mixed_fp16: skip the unscale-and-check pass over gradients");
  t->add_option("--all-reduce", args.all_reduce, "Data parallel all-reduce: ring or tree")->capture_default_str();
  t->add_option("--bucket-mib", args.bucket_mib, "Data parallel: gradient bucket size in MiB")->capture_default_str();
  t->add_flag("--no-overlap", args.no_overlap, "Data parallel: all-reduce after backward instead of during it");
  t->add_option("--micro-batches", args.micro_batches, "Pipeline: micro-batches per step (default: 4 x stages)");
  t->add_flag("--no-launch-overhead", args.no_launch_overhead, "Ignore the host's CPU time per kernel launch");
  t->add_flag("--cuda-graphs", args.cuda_graphs, "One graph launch per step instead of one launch per kernel");
  t->add_option("--loader-rate", args.loader_rate,
                "Input pipeline: samples/s per node (0 = unlimited; default: the system's host figure)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            try {
              if (std::stod(value) >= 0) return "";
            } catch (const std::exception&) {
            }
            return "expected samples/s per node, >= 0 (0 = unlimited), got '" + value + "'";
          },
          "SAMPLES/S"));
  t->add_option("--fidelity", args.fidelity, "Kernel timing: analytic (fast models) or cycle (cycle-level models)")
      ->capture_default_str();
  t->add_flag("--no-effects", args.no_effects, "Skip the re-estimates that price each switch (faster)");
  t->add_option("--out", args.out, "Directory for report.json, kernels.csv, timeline.csv, report.html")
      ->capture_default_str();
  t->add_flag("-q,--quiet", args.quiet, "Print only one line");
}

namespace {

InputError bad_choice(const std::string& option, const std::string& value, const std::string& choices) {
  return InputError("", option, "one of " + choices + ", not '" + value + "'");
}

Parallelism parse_parallelism(const std::string& s) {
  if (s == "data") return Parallelism::data;
  if (s == "tensor") return Parallelism::tensor;
  if (s == "pipeline") return Parallelism::pipeline;
  throw bad_choice("--parallel", s, "data|tensor|pipeline");
}

TensorLayout parse_layout(const std::string& s) {
  if (s == "nhwc") return TensorLayout::nhwc;
  if (s == "nchw") return TensorLayout::nchw;
  throw bad_choice("--layout", s, "nhwc|nchw");
}

AllReduceAlgorithm parse_all_reduce(const std::string& s) {
  if (s == "ring") return AllReduceAlgorithm::ring;
  if (s == "tree") return AllReduceAlgorithm::tree;
  throw bad_choice("--all-reduce", s, "ring|tree");
}

Fidelity parse_fidelity(const std::string& s) {
  if (s == "analytic") return Fidelity::analytic;
  if (s == "cycle") return Fidelity::cycle;
  throw bad_choice("--fidelity", s, "analytic|cycle");
}

SystemConfig load_devices(const TrainArgs& args) {
  if (args.system.empty() && args.arch.empty()) {
    throw InputError("", "--system/--arch",
                     "give the devices to train on: --system FILE (several devices and their links, e.g. "
                     "configs/systems/dgx1_v100.json) or --arch FILE (one device, e.g. configs/v100.json)");
  }
  if (!args.system.empty() && !args.arch.empty()) {
    throw InputError("", "--system/--arch",
                     "give one of --system FILE or --arch FILE, not both (a system file names its devices' "
                     "architectures)");
  }
  if (!args.system.empty()) return load_system(args.system);
  return single_device_system(load_architecture(args.arch));
}

}  // namespace

TrainOptions train_options_of(const TrainArgs& args) {
  TrainOptions o;
  if (args.batch <= 0) {
    throw InputError("", "--batch", "a positive global batch (samples per training step), e.g. --batch 256; got " +
                                        std::to_string(args.batch));
  }
  o.batch = args.batch;
  if (args.devices < 0) {
    throw InputError("", "--devices", "a positive number of devices (0 or absent: all of the system's); got " +
                                          std::to_string(args.devices));
  }
  o.devices = args.devices;
  o.parallel = parse_parallelism(args.parallel);
  const std::optional<PrecisionPolicy> precision = parse_precision_policy(args.precision);
  if (!precision) throw bad_choice("--precision", args.precision, kPrecisionPolicyNames);
  o.step.precision = *precision;
  const std::optional<Optimizer> optimizer = parse_optimizer(args.optimizer);
  if (!optimizer) throw bad_choice("--optimizer", args.optimizer, "sgd|adam");
  o.step.optimizer = *optimizer;
  o.step.fuse = args.fuse;
  o.step.loss_scaling = !args.no_loss_scaling;
  o.layout = parse_layout(args.layout);
  o.all_reduce = parse_all_reduce(args.all_reduce);
  if (!(std::isfinite(args.bucket_mib) && args.bucket_mib > 0 && args.bucket_mib <= 1024 * 1024)) {
    throw InputError("", "--bucket-mib", "a gradient bucket size in MiB, > 0 and at most 1048576 (PyTorch DDP's default is 25)");
  }
  o.bucket_bytes = std::max<int64_t>(1, std::llround(args.bucket_mib * 1048576.0));
  o.overlap = !args.no_overlap;
  if (args.micro_batches < 0) {
    throw InputError("", "--micro-batches", "a positive number of micro-batches per step (0 or absent: 4 x stages); got " +
                                                std::to_string(args.micro_batches));
  }
  o.micro_batches = args.micro_batches;
  o.launch_overhead = !args.no_launch_overhead;
  o.cuda_graphs = args.cuda_graphs;
  if (std::isnan(args.loader_rate) || std::isinf(args.loader_rate)) {
    throw InputError("", "--loader-rate", "samples/s per node, >= 0 (0 = unlimited)");
  }
  o.loader_samples_per_second = args.loader_rate < 0 ? -1 : args.loader_rate;
  o.fidelity = parse_fidelity(args.fidelity);
  o.effects = !args.no_effects;
  return o;
}

TrainOutcome run_training(const TrainArgs& args) {
  const TrainOptions options = train_options_of(args);
  const SystemConfig system = load_devices(args);
  const Network network = load_network_or_default(args.workload);
  TrainOutcome out;
  out.result = estimate_training(system, network, options);
  // Everything rendered here, before the caller writes anything.
  out.report = train_report_json(out.result, system);
  out.kernels_csv = train_kernels_csv(out.result);
  out.timeline_csv = train_timeline_csv(out.result);
  out.html = render_train_html(out.result);
  out.summary = format_train_summary(out.result);
  out.quiet_line = train_quiet_line(out.result);
  return out;
}

void write_train_files(const std::string& out_dir, const TrainOutcome& out) {
  const std::string report = out.report.dump(2) + "\n";
  make_output_dir(out_dir);
  const std::filesystem::path dir(out_dir);
  write_file_atomically((dir / "kernels.csv").string(), out.kernels_csv);
  write_file_atomically((dir / "timeline.csv").string(), out.timeline_csv);
  write_file_atomically((dir / "report.html").string(), out.html);
  write_file_atomically((dir / "report.json").string(), report);  // last: its presence means complete
}

int train_command(const TrainArgs& args) {
  const TrainOutcome out = run_training(args);
  write_train_files(args.out, out);
  if (args.quiet) {
    std::cout << out.quiet_line << "\n";
  } else {
    std::cout << out.summary << "reports: " << args.out << "/report.json, kernels.csv, timeline.csv, report.html\n";
  }
  return 0;
}

}  // namespace loom
