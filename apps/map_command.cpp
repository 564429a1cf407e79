#include "apps/map_command.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>

#include "apps/hierarchy_report.h"
#include "apps/report_writer.h"
#include "arch/architecture.h"
#include "mapper/constraints.h"
#include "mapper/cost_model.h"
#include "mapper/mapping.h"
#include "mapper/network_mapper.h"
#include "sim/embedded_files.h"
#include "sim/error.h"
#include "sim/text_file.h"
#include "workloads/network.h"

namespace loom {

std::string MapperArgs::first_given() const {
  for (const CLI::Option* o : options)
    if (o->count() > 0) return o->get_name();
  return given.empty() ? "" : given.front();
}

void add_mapper_options(CLI::App* cmd, MapperArgs& args, const std::string& group) {
  std::vector<CLI::Option*> options = {
      cmd->add_option("--objective", args.objective, "What the search minimizes")
          ->check(CLI::IsMember({"latency", "energy", "edp"}))
          ->capture_default_str(),
      cmd->add_option("--search", args.search,
                      "Search method (auto: exhaustive when the map space is small, else annealing)")
          ->check(CLI::IsMember({"auto", "exhaustive", "random", "anneal"}))
          ->capture_default_str(),
      cmd->add_option("--budget", args.budget, "Evaluations for random/anneal (0: the method's default)")
          ->check(CLI::NonNegativeNumber),
      cmd->add_option("--seed", args.seed, "Seed for random/anneal (results are reproducible per seed)")
          ->capture_default_str(),
      cmd->add_option("-j,--threads", args.threads,
                      "Search threads (0: all cores; the result does not depend on it)")
          ->check(CLI::Range(0, 1024)),
      cmd->add_option("--dataflow", args.dataflow,
                      "Dataflow constraint (default: the architecture's; none: unconstrained)")
          ->check(CLI::IsMember({"ws", "is", "os", "rs", "none"})),
  };
  args.options.clear();
  for (CLI::Option* o : options) {
    if (!group.empty()) o->group(group);
    args.options.push_back(o);
  }
}

SearchOptions search_options_of(const MapperArgs& a) {
  SearchOptions o;
  o.objective = a.objective == "latency" ? Objective::latency
                : a.objective == "energy" ? Objective::energy
                                          : Objective::edp;
  o.method = a.search == "exhaustive" ? SearchMethod::exhaustive
             : a.search == "random"   ? SearchMethod::random
             : a.search == "anneal"   ? SearchMethod::anneal
                                      : SearchMethod::automatic;
  o.budget = a.budget;
  o.seed = a.seed;
  o.threads = a.threads > 0 ? a.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return o;
}

std::string dataflow_of(const MapperArgs& a, const HierarchyConfig& arch) {
  if (!a.dataflow.empty()) return a.dataflow;
  return arch.dataflow.empty() ? "none" : arch.dataflow;
}

void add_map_command(CLI::App& app, MapArgs& args) {
  CLI::App* map = app.add_subcommand(
      "map", "Find the best mapping of one layer on an architecture (analytic cost model), or evaluate a pinned one");
  map->add_option("--arch", args.arch,
                  "Architecture: any loom .json (systolic or hierarchy) or SCALE-Sim .cfg "
                  "(default: embedded 128x128 WS TPU-like array)");
  map->add_option("--layer", args.layer, "Layer name in --workload, or a workload file with exactly one layer")
      ->required();
  map->add_option("--workload", args.workload,
                  "Network the layer is taken from: loom .json or SCALE-Sim .csv (default: embedded ResNet-50)");
  map->add_option("--mapping", args.mapping,
                  "Evaluate this pinned mapping (a mapping.json) instead of searching");
  map->add_option("--out", args.out, "Directory for mapping.json and map_report.json")->capture_default_str();
  add_mapper_options(map, args.mapper);
  map->add_flag("-q,--quiet", args.quiet, "Print only a one-line summary");
}

Architecture load_arch_or_default(const std::string& path) {
  if (!path.empty()) return load_architecture(path);
  SystolicConfig c =
      parse_systolic_json(Json::parse(embedded_file("default_arch")), "<embedded>:default_arch", "");
  c.energy_table = "<embedded>:default_energy";
  return {c};
}

Network load_network_or_default(const std::string& path) {
  if (!path.empty()) return load_workload(path);
  return parse_network_json(Json::parse(embedded_file("default_workload")), "<embedded>:resnet50");
}

// --layer is a workload file with one layer, or a layer name in --workload.
ChosenLayer choose_layer(const MapArgs& args) {
  namespace fs = std::filesystem;
  const std::string ext = fs::path(args.layer).extension().string();
  if ((ext == ".json" || ext == ".csv") && fs::is_regular_file(args.layer)) {
    const Network net = load_workload(args.layer);
    if (net.layers.size() != 1) {
      throw InputError(args.layer, "--layer",
                       "a workload file given as --layer must hold exactly one layer, this one has " +
                           std::to_string(net.layers.size()) + " (" + layer_name_preview(net) +
                           "); to pick one, pass --workload " + args.layer + " --layer NAME");
    }
    return {net.layers[0], net.name, net.source_file};
  }
  const Network net = load_network_or_default(args.workload);
  for (const Layer& l : net.layers)
    if (l.name == args.layer) return {l, net.name, net.source_file};
  // A name that looks like a file but is not one is most likely a mistyped path.
  const std::string not_a_file =
      ext == ".json" || ext == ".csv" ? "; nor is it a workload file: no such file" : "";
  throw InputError(net.source_file, "--layer",
                   "no layer named '" + args.layer + "' in " + net.name + " (" + std::to_string(net.layers.size()) +
                       " layers: " + layer_name_preview(net) + ")" + not_a_file);
}

namespace {

std::string problem_line(const Problem& p) {
  // A GEMM is printed as M N K (its batch B only when > 1); a convolution as N K C P Q R S.
  static constexpr int kConvOrder[] = {kDimN, kDimK, kDimC, kDimP, kDimQ, kDimR, kDimS};
  static constexpr int kGemmOrder[] = {kDimN, kDimP, kDimK, kDimC};
  std::string s;
  auto add = [&](int d) {
    if (!s.empty()) s += ' ';
    s += std::string(p.dim_name(d)) + "=" + std::to_string(p.bound[d]);
  };
  if (p.is_gemm) {
    for (int d : kGemmOrder)
      if (d != kDimN || p.bound[d] > 1) add(d);
  } else {
    for (int d : kConvOrder) add(d);
  }
  if (p.groups > 1) s += ", " + std::to_string(p.groups) + " groups";
  if (p.stride_h != 1 || p.stride_w != 1)
    s += ", stride " + std::to_string(p.stride_h) + "x" + std::to_string(p.stride_w);
  if (p.dilation_h != 1 || p.dilation_w != 1)
    s += ", dilation " + std::to_string(p.dilation_h) + "x" + std::to_string(p.dilation_w);
  return s + ", " + with_commas(p.macs()) + " MACs";
}

// The field of a pinned-mapping error: the level (by index and name) and the operand.
std::string issue_field(const MappingIssue& issue, const HierarchyConfig& arch) {
  if (issue.level < 0 || issue.level >= arch.num_levels()) return "levels";
  std::string f = "levels[" + std::to_string(issue.level) + "] (level " + arch.levels[issue.level].name;
  if (issue.operand >= 0) f += std::string(", operand ") + operand_name(issue.operand);
  return f + ")";
}

}  // namespace

MapOutcome map_one_layer(const MapArgs& args, const Architecture& loaded, const ChosenLayer& chosen) {
  MapOutcome out;
  out.arch = as_hierarchy(loaded);
  const HierarchyConfig& arch = out.arch;
  check_level_names_for_reports(arch);
  out.chosen = chosen;
  out.problem = problem_of(chosen.layer, arch.im2col);
  const Problem& problem = out.problem;
  out.dataflow = dataflow_of(args.mapper, arch);
  const std::string& dataflow = out.dataflow;
  out.options = search_options_of(args.mapper);

  SearchResult& result = out.result;
  if (!args.mapping.empty()) {
    // A pinned mapping is the user's choice: it is only checked for feasibility. Breaking
    // the dataflow's rules is allowed (that is often the point of pinning), but said.
    const Mapping m = parse_mapping_json(load_json_file(args.mapping), args.mapping, problem, arch);
    if (dataflow != "none") {
      const MappingConstraints c = constraints_for(dataflow, problem, arch, arch.source_file);
      std::string why;
      if (!satisfies(c, m, problem, arch, &why)) {
        std::fprintf(stderr, "loom: warning: %s: the mapping breaks dataflow %s's rules (%s); evaluated anyway\n",
                     args.mapping.c_str(), dataflow.c_str(), why.c_str());
      }
    }
    MappingIssue issue;
    if (!check_mapping(problem, arch, m, &issue)) {
      throw InputError(args.mapping, issue_field(issue, arch),
                       issue.what + " (layer " + chosen.layer.name + " on " + arch.name + ")");
    }
    result.found = true;
    result.best = m;
    result.cost = evaluate(problem, arch, m);
    result.evaluated = result.valid = 1;
    LOOM_CHECK(result.cost.valid, "map", "check_mapping accepted a mapping that evaluate() rejects");
  } else {
    result = map_layer(problem, arch, dataflow, out.options);
  }

  const MapperSettings settings{dataflow, out.options};
  out.mapping_json = mapping_to_json(result.best, problem, arch);
  out.nest = format_loop_nest(result.best, problem, arch);
  out.rate = result.seconds > 0 ? static_cast<double>(result.evaluated) / result.seconds : 0.0;
  // No wall-clock figures in the file (the rate is printed only): the same inputs must give
  // the same report byte for byte, whatever the machine's load (tests/test_determinism.cpp).
  Json search = {{"method", args.mapping.empty() ? name_of(result.method_used) : "pinned"},
                 {"evaluated", result.evaluated},
                 {"valid", result.valid},
                 {"pinned_file", args.mapping.empty() ? Json(nullptr) : Json(args.mapping)}};
  Json cost = cost_to_json(CostTotals::of(result.cost), arch);
  cost["bottleneck"] = result.cost.bottleneck < 0 ? "compute" : arch.levels[result.cost.bottleneck].name;
  out.report = {
      {"schema_version", kReportSchemaVersion},
      {"tool", {{"name", "loom"}, {"version", LOOM_VERSION}}},
      {"command", "map"},
      {"fidelity", "analytic"},
      {"arch", hierarchy_arch_json(arch, dataflow)},
      {"mapper", mapper_settings_json(settings)},
      {"workload", {{"name", chosen.network_name}, {"file", chosen.network_file}}},
      {"layer", {{"name", chosen.layer.name}, {"kind", chosen.layer.kind_name()}}},
      {"problem", problem_to_json(problem)},
      {"search", search},
      {"mapping", out.mapping_json},
      {"loop_nest", out.nest},
      {"cost", cost},
  };

  return out;
}

int map_command(const MapArgs& args) {
  const Architecture arch_loaded = load_arch_or_default(args.arch);
  const MapOutcome out = map_one_layer(args, arch_loaded, choose_layer(args));
  const HierarchyConfig& arch = out.arch;
  const SearchResult& result = out.result;
  // Everything is rendered; now write, map_report.json last (its presence means complete).
  make_output_dir(args.out);
  const std::filesystem::path dir(args.out);
  write_file_atomically((dir / "mapping.json").string(), out.mapping_json.dump(2) + "\n");
  write_file_atomically((dir / "map_report.json").string(), out.report.dump(2) + "\n");

  const Cost& c = result.cost;
  if (args.quiet) {
    const std::string unit = arch.energy_unit.substr(0, arch.energy_unit.find(' '));
    std::printf("%s: %s cycles, %.6g %s, EDP %.6g, utilization %.1f%%\n", out.chosen.layer.name.c_str(),
                with_commas(c.cycles).c_str(), c.energy_pj, unit.c_str(), c.edp(), 100.0 * c.utilization);
    return 0;
  }
  std::string levels;
  for (const StorageLevel& l : arch.levels) levels += (levels.empty() ? "" : " -> ") + l.name;
  std::cout << "layer " << out.chosen.layer.name << " (" << out.chosen.layer.kind_name() << ") of " << out.chosen.network_name
            << " on " << arch.name << ": " << levels << ", " << with_commas(arch.total_pes()) << " PEs, dataflow "
            << out.dataflow << "\n"
            << "problem: " << problem_line(out.problem) << "\n";
  if (args.mapping.empty()) {
    std::printf("search: %s, objective %s, %s evaluated, %s valid, %.2f s (%s evaluations/s)\n",
                name_of(result.method_used), name_of(out.options.objective), with_commas(result.evaluated).c_str(),
                with_commas(result.valid).c_str(), result.seconds, with_commas(static_cast<int64_t>(out.rate)).c_str());
  } else {
    std::printf("mapping: pinned from %s (checked and evaluated; no search)\n", args.mapping.c_str());
  }
  std::fflush(stdout);
  std::cout << "\nmapping (outermost loop first):\n"
            << out.nest << "\n"
            << format_cost_tables(c, arch) << "\noutputs: " << (dir / "mapping.json").string() << ", "
            << (dir / "map_report.json").string() << "\n";
  return 0;
}

}  // namespace loom
