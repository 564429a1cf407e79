// `loom map`: find (or evaluate a pinned) mapping of one layer on one architecture with
// the analytic cost model; prints the search, the loop nest and the cost tables, and
// writes mapping.json (pinnable with --mapping) and map_report.json (docs/mapping.md).
// Also the mapper options that `loom run` shares for hierarchy architectures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/architecture.h"
#include "arch/hierarchy/hierarchy_config.h"
#include "mapper/search.h"
#include "workloads/network.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace loom {

// --objective, --search, --budget, --seed, -j, --dataflow.
struct MapperArgs {
  std::string objective = "edp";
  std::string search = "auto";
  int64_t budget = 0;
  uint64_t seed = 1;
  int threads = 0;        // 0: every hardware thread (results do not depend on it)
  std::string dataflow;   // empty: the architecture's own
  std::vector<const CLI::Option*> options;  // the options above, to tell which were given
  std::vector<std::string> given;           // callers without a command line (Python): names given

  // The first of these options given on the command line ("" when none).
  std::string first_given() const;
};

// `group`: the --help section to list them under ("" for the default).
// --arch / --workload as given, or the embedded defaults (the 128x128 WS array, ResNet-50)
// when empty. Shared by `loom run` and `loom map`.
Architecture load_arch_or_default(const std::string& path);
Network load_network_or_default(const std::string& path);

void add_mapper_options(CLI::App* command, MapperArgs& args, const std::string& group = "");
SearchOptions search_options_of(const MapperArgs& args);
// The dataflow to map under: --dataflow, else the architecture's; "none" when unconstrained.
std::string dataflow_of(const MapperArgs& args, const HierarchyConfig& arch);

struct MapArgs {
  std::string arch;      // empty: the embedded default architecture
  std::string layer;     // a layer name in --workload, or a workload file with one layer
  std::string workload;  // empty: the embedded default network (ResNet-50)
  std::string mapping;   // pinned mapping to evaluate instead of searching
  std::string out = "loom-out";
  bool quiet = false;
  MapperArgs mapper;
};

void add_map_command(CLI::App& app, MapArgs& args);
int map_command(const MapArgs& args);  // returns the exit code

// The layer to map and the network it came from.
struct ChosenLayer {
  Layer layer;
  std::string network_name, network_file;
};

// What `loom map` computes before printing or writing: the search (or the pinned mapping's
// evaluation) and map_report.json's body. The Python bindings call it too.
struct MapOutcome {
  HierarchyConfig arch;
  ChosenLayer chosen;
  Problem problem;
  std::string dataflow;
  SearchOptions options;
  SearchResult result;
  Json mapping_json, report;
  std::string nest;
  double rate = 0;  // evaluations per second
};
// --layer is a workload file with one layer, or a layer name in --workload.
ChosenLayer choose_layer(const MapArgs& args);
// args.arch and args.layer are not read: `arch` and `chosen` are (the CLI loads them from them).
MapOutcome map_one_layer(const MapArgs& args, const Architecture& arch, const ChosenLayer& chosen);

}  // namespace loom
