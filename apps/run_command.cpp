#include "apps/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/gpu_network_report.h"
#include "apps/hierarchy_report.h"
#include "apps/layer_table.h"
#include "apps/report_command.h"
#include "apps/report_writer.h"
#include "arch/architecture.h"
#include "arch/systolic/systolic_simulator.h"
#include "mapper/network_evaluation.h"
#include "mapper/network_mapper.h"
#include "sim/error.h"

namespace loom {

void add_run_command(CLI::App& app, RunArgs& args) {
  CLI::App* run = app.add_subcommand("run", "Simulate a network on an architecture and write reports (systolic: cycle level; hierarchy: every layer mapped, analytic)");
  run->add_option("--arch", args.arch,
                  "Architecture: loom .json (systolic or hierarchy) or SCALE-Sim .cfg (default: embedded 128x128 WS TPU-like array)");
  run->add_option("--workload", args.workload,
                  "Network: loom .json or SCALE-Sim topology .csv (default: embedded ResNet-50)");
  run->add_option("--out", args.out, "Directory for report.json, layers.csv, resolved_config.json")
      ->capture_default_str();
  run->add_flag("--scalesim-compat", args.scalesim_compat,
                "Use SCALE-Sim's fold timing conventions (docs/systolic-conventions.md)");
  run->add_option("--precision", args.precision,
                  "GPU architectures: fp16 (tensor-core WMMA GEMMs, the default) or fp32 (SIMT kernels)")
      ->check(CLI::IsMember({"fp16", "fp32"}));
  run->add_flag("-q,--quiet", args.quiet, "Print only the totals line");
  add_mapper_options(run, args.mapper, "Mapper (hierarchy architectures only)");
}

namespace {

using Progress = std::function<void(size_t, size_t)>;

// A hierarchy has no fixed dataflow rule: every layer is mapped (one search per distinct
// shape) and the best mapping is priced with the analytic model.
RunOutcome run_hierarchy(const RunArgs& args, const HierarchyConfig& arch, const Network& network,
                         const Progress& progress) {
  check_level_names_for_reports(arch);
  if (args.scalesim_compat) {
    throw InputError(arch.source_file, "--scalesim-compat",
                     "SCALE-Sim conventions apply to systolic architectures only; this one is a hierarchy");
  }
  HierarchyRunContext ctx{&arch, &network, {dataflow_of(args.mapper, arch), search_options_of(args.mapper)}};
  const std::vector<LayerMapping> layers = map_network(network, arch, ctx.mapper.dataflow, ctx.mapper.options, progress);
  RunOutcome out{hierarchy_report_to_json(layers, ctx), hierarchy_evaluation(layers, arch, network),
                 hierarchy_layers_to_csv(layers, arch), arch.to_json().dump(2) + "\n",
                 format_hierarchy_table(layers, arch), ""};
  out.headline = network.name + " on " + arch.name + " (hierarchy, " + std::to_string(arch.total_pes()) +
                 " PEs, dataflow " + ctx.mapper.dataflow + ", objective " + name_of(ctx.mapper.options.objective) + ")";
  return out;
}

// A GPU runs each layer through a shipped kernel on the SIMT model, cycle by cycle.
RunOutcome run_gpu(const RunArgs& args, const simt::GpuConfig& config, const Network& network,
                   const Progress& progress) {
  if (args.scalesim_compat) {
    throw InputError(config.source_file, "--scalesim-compat", "SCALE-Sim conventions apply to systolic architectures only");
  }
  if (const std::string given = args.mapper.first_given(); !given.empty()) {
    throw InputError(config.source_file, given,
                     "mapper options apply to \"kind\": \"hierarchy\" architectures; a GPU runs each layer through "
                     "a shipped kernel (docs/simt-model.md)");
  }
  GpuNetworkContext ctx{&config, &network,
                        args.precision == "fp32" ? simt::GpuPrecision::fp32 : simt::GpuPrecision::fp16};
  const std::vector<simt::GpuLayerRun> runs = simt::run_network_on_gpu(network, config, ctx.precision, progress);
  RunOutcome out{gpu_network_report_to_json(runs, ctx), gpu_evaluation(runs, config, ctx.precision, network),
                 gpu_network_layers_csv(runs, ctx), simt::gpu_config_to_json(config).dump(2) + "\n",
                 format_gpu_network_table(runs, ctx), ""};
  out.headline = network.name + " on " + config.name + " (SIMT model, " + std::to_string(config.sms) + " SMs, " +
                 simt::precision_name(ctx.precision) + ")";
  return out;
}

RunOutcome run_systolic(const RunArgs& args, const SystolicConfig& config, const Network& network,
                        const Progress& progress) {
  // The systolic model has its dataflow built in; the mapper's options would be ignored.
  if (const std::string given = args.mapper.first_given(); !given.empty()) {
    throw InputError(config.source_file, given,
                     "mapper options apply to \"kind\": \"hierarchy\" architectures only; a systolic array runs "
                     "its fixed dataflow (use `loom map` to search mappings of one layer on it)");
  }
  const EnergyTable energy = EnergyTable::load(config.energy_table);
  SimulationOptions options;
  options.scalesim_compat = args.scalesim_compat;
  options.progress = progress;
  const NetworkResult result = simulate_network(config, network, energy, options);
  RunOutcome out{report_to_json(result, RunContext{&config, &network, args.scalesim_compat}),
                 systolic_evaluation(result, config, network, Fidelity::cycle), layers_to_csv(result),
                 config.to_json().dump(2) + "\n", format_layer_table(result), ""};
  out.headline = network.name + " on " + config.name + " (" + std::to_string(config.rows) + "x" +
                 std::to_string(config.cols) + " " + name_of(config.dataflow) +
                 (args.scalesim_compat ? ", SCALE-Sim conventions" : "") + ")";
  return out;
}

}  // namespace

RunOutcome run_network(const Architecture& arch, const Network& network, const RunArgs& args,
                       const std::function<void(size_t, size_t)>& progress) {
  if (arch.is_gpu()) return run_gpu(args, arch.gpu(), network, progress);
  if (!args.precision.empty()) {
    throw InputError(arch.name(), "--precision", "--precision applies to GPU architectures; a systolic array or "
                                                 "hierarchy takes its data type from the config");
  }
  if (arch.is_hierarchy()) return run_hierarchy(args, arch.hierarchy(), network, progress);
  return run_systolic(args, arch.systolic(), network, progress);
}

int run_command(const RunArgs& args) {
  const Architecture arch = load_arch_or_default(args.arch);
  const Network network = load_network_or_default(args.workload);
  std::function<void(size_t, size_t)> progress;
  if (!args.quiet && isatty(STDERR_FILENO)) {
    const char* verb = arch.is_hierarchy() ? "mapping" : "simulating";
    progress = [verb](size_t done, size_t total) {
      std::fprintf(stderr, "\r%s layer %zu/%zu", verb, done, total);
      if (done == total) std::fprintf(stderr, "\r%*s\r", 40, "");
    };
  }
  const RunOutcome out = run_network(arch, network, args, progress);
  write_run_files(args.out, out.report, out.evaluation, out.layers_csv, out.resolved_config);
  if (args.quiet) {
    const size_t last = out.table.rfind('\n', out.table.size() - 2);
    std::cout << out.table.substr(last + 1);
  } else {
    std::cout << out.headline << "\n"
              << out.table << "reports: " << args.out << "/report.json, layers.csv, resolved_config.json, report.html\n";
  }
  return 0;
}

}  // namespace loom
