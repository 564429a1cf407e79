#include "apps/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/gpu_network_report.h"
#include "apps/hierarchy_report.h"
#include "apps/interrupt_notice.h"
#include "apps/layer_record_json.h"
#include "apps/layer_table.h"
#include "apps/report_command.h"
#include "apps/report_writer.h"
#include "apps/run_checkpoint.h"
#include "apps/test_interrupt_hook.h"
#include "arch/architecture.h"
#include "arch/systolic/systolic_simulator.h"
#include "mapper/network_evaluation.h"
#include "mapper/network_mapper.h"
#include "sim/error.h"
#include "sim/interrupt_guard.h"

namespace loom {

namespace fs = std::filesystem;

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
  run->add_flag("--resume", args.resume,
                "Continue an interrupted run from OUT/run.checkpoint.jsonl, simulating only the layers it lacks");
  add_mapper_options(run, args.mapper, "Mapper (hierarchy architectures only)");
}

namespace {

using Progress = std::function<void(size_t, size_t)>;

// A hierarchy has no fixed dataflow rule: every layer is mapped (one search per distinct
// shape) and the best mapping is priced with the analytic model.
RunOutcome run_hierarchy(const RunArgs& args, const HierarchyConfig& arch, const Network& network,
                         const Progress& progress, RunCheckpoint* checkpoint) {
  check_level_names_for_reports(arch);
  if (args.scalesim_compat) {
    throw InputError(arch.source_file, "--scalesim-compat",
                     "SCALE-Sim conventions apply to systolic architectures only; this one is a hierarchy");
  }
  HierarchyRunContext ctx{&arch, &network, {dataflow_of(args.mapper, arch), search_options_of(args.mapper)}};
  const auto store = checkpoint_store<SearchResult>(
      checkpoint,
      [&](const Json& record, size_t i) {
        return search_result_from_json(record, problem_of(network.layers[i], arch.im2col), arch);
      },
      search_result_to_json);
  const std::vector<LayerMapping> layers =
      map_network(network, arch, ctx.mapper.dataflow, ctx.mapper.options, progress, store);
  RunOutcome out{hierarchy_report_to_json(layers, ctx), hierarchy_evaluation(layers, arch, network),
                 hierarchy_layers_to_csv(layers, arch), arch.to_json().dump(2) + "\n",
                 format_hierarchy_table(layers, arch), ""};
  out.headline = network.name + " on " + arch.name + " (hierarchy, " + std::to_string(arch.total_pes()) +
                 " PEs, dataflow " + ctx.mapper.dataflow + ", objective " + name_of(ctx.mapper.options.objective) + ")";
  return out;
}

// A GPU runs each layer through a shipped kernel on the SIMT model, cycle by cycle.
RunOutcome run_gpu(const RunArgs& args, const simt::GpuConfig& config, const Network& network,
                   const Progress& progress, RunCheckpoint* checkpoint) {
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
  const auto store = checkpoint_store<simt::GpuStats>(
      checkpoint, [](const Json& record, size_t) { return gpu_stats_from_json(record); }, gpu_stats_to_json);
  const std::vector<simt::GpuLayerRun> runs = simt::run_network_on_gpu(network, config, ctx.precision, progress, store);
  RunOutcome out{gpu_network_report_to_json(runs, ctx), gpu_evaluation(runs, config, ctx.precision, network),
                 gpu_network_layers_csv(runs, ctx), simt::gpu_config_to_json(config).dump(2) + "\n",
                 format_gpu_network_table(runs, ctx), ""};
  out.headline = network.name + " on " + config.name + " (SIMT model, " + std::to_string(config.sms) + " SMs, " +
                 simt::precision_name(ctx.precision) + ")";
  return out;
}

RunOutcome run_systolic(const RunArgs& args, const SystolicConfig& config, const Network& network,
                        const Progress& progress, RunCheckpoint* checkpoint) {
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
  options.store = checkpoint_store<LayerTiming>(
      checkpoint, [](const Json& record, size_t) { return layer_timing_from_json(record); }, layer_timing_to_json);
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
                       const std::function<void(size_t, size_t)>& progress, RunCheckpoint* checkpoint) {
  if (arch.is_gpu()) return run_gpu(args, arch.gpu(), network, progress, checkpoint);
  if (!args.precision.empty()) {
    throw InputError(arch.name(), "--precision", "--precision applies to GPU architectures; a systolic array or "
                                                 "hierarchy takes its data type from the config");
  }
  if (arch.is_hierarchy()) return run_hierarchy(args, arch.hierarchy(), network, progress, checkpoint);
  return run_systolic(args, arch.systolic(), network, progress, checkpoint);
}

namespace {

// The options that change a run's results, as one canonical line for the checkpoint's
// fingerprint (-j and -q change nothing but speed and output).
std::string result_options(const RunArgs& a) {
  const MapperArgs& m = a.mapper;
  return "scalesim_compat=" + std::to_string(a.scalesim_compat) + " precision=" + a.precision +
         " objective=" + m.objective + " search=" + m.search + " budget=" + std::to_string(m.budget) +
         " seed=" + std::to_string(m.seed) + " dataflow=" + m.dataflow;
}

// A word as the shell reads it back: quoted only when it needs to be.
std::string shell_word(const std::string& w) {
  const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789_-+=./:,@%") == std::string::npos;
  if (plain) return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The command line that continues this run: the options it was given, plus --resume.
std::string resume_command(const RunArgs& a) {
  std::string c = "loom run";
  if (!a.arch.empty()) c += " --arch " + shell_word(a.arch);
  if (!a.workload.empty()) c += " --workload " + shell_word(a.workload);
  c += " --out " + shell_word(a.out);
  if (a.scalesim_compat) c += " --scalesim-compat";
  if (!a.precision.empty()) c += " --precision " + a.precision;
  for (const CLI::Option* o : a.mapper.options) {
    if (o->count() > 0 && !o->results().empty()) c += " " + o->get_name() + " " + shell_word(o->results().back());
  }
  if (a.quiet) c += " -q";
  return c + " --resume";
}

// From here on Ctrl-C and SIGTERM say how many layers are kept and how to resume.
void arm_interrupt_notice(const RunArgs& args, const RunCheckpoint& checkpoint) {
  const std::string total = std::to_string(checkpoint.layer_count());
  const std::string command = resume_command(args);
  interrupt_notice::install(
      "\nloom: interrupted: ",
      " of " + total + " layers finished and kept in " + checkpoint.path() + "; resume with:\n  " + command + "\n",
      "\nloom: interrupted: none of the " + total + " layers had finished, nothing was kept; run again with:\n  " +
          command + "\n",
      static_cast<int64_t>(checkpoint.kept()));
}

}  // namespace

int run_command(const RunArgs& args) {
  const Architecture arch = load_arch_or_default(args.arch);
  const Network network = load_network_or_default(args.workload);
  RunCheckpoint checkpoint((fs::path(args.out) / kRunCheckpointFile).string(),
                           run_checkpoint_header(arch.name(), arch.to_json().dump(), network, result_options(args)),
                           args.resume);
  if (!checkpoint.warning().empty()) std::fprintf(stderr, "loom: warning: %s\n", checkpoint.warning().c_str());
  if (args.resume && !args.quiet) {
    if (checkpoint.loaded()) {
      std::fprintf(stderr, "loom: resuming: %zu of %zu layers kept in %s\n", checkpoint.kept(),
                   checkpoint.layer_count(), checkpoint.path().c_str());
    } else {
      std::fprintf(stderr, "loom: no checkpoint in %s to resume: running every layer\n", args.out.c_str());
    }
  }
  arm_interrupt_notice(args, checkpoint);
  TestInterruptHook test_hook("LOOM_TEST_INTERRUPT_AFTER_LAYERS");
  checkpoint.on_kept = [&test_hook] {
    interrupt_notice::count_kept();
    test_hook.item_kept();
  };
  std::function<void(size_t, size_t)> progress;
  if (!args.quiet && isatty(STDERR_FILENO)) {
    const char* verb = arch.is_hierarchy() ? "mapping" : "simulating";
    progress = [verb](size_t done, size_t total) {
      std::fprintf(stderr, "\r%s layer %zu/%zu", verb, done, total);
      if (done == total) std::fprintf(stderr, "\r%*s\r", 40, "");
    };
  }
  const RunOutcome out = run_network(arch, network, args, progress, &checkpoint);
  {
    // The reports are written whole and the checkpoint then removed; a Ctrl-C meanwhile
    // is held off, and dropped: the run is complete.
    const DeferInterrupts hold;
    write_run_files(args.out, out.report, out.evaluation, out.layers_csv, out.resolved_config);
    checkpoint.remove();
    interrupt_notice::finish();
  }
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
