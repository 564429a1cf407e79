// `loom sweep SPEC.json` (design-space exploration) and `loom merge SHARD_DIR...` (join a
// sharded sweep). Both write their results and then the HTML report (report.html) into
// --out. Exit 0 when done; 2 on bad input, or when no point meets the constraints (the
// results are still written); 130 when interrupted, with every finished point kept and
// the command that resumes printed. Docs: docs/sweeps.md.
#pragma once

#include <string>
#include <vector>

namespace CLI { class App; }

namespace loom {

struct SweepArgs {
  std::string spec;
  std::string out = "loom-sweep";
  int jobs = 1;
  bool resume = false;
  std::string shard;  // "i/N"
  bool quiet = false;
};

struct MergeArgs {
  std::vector<std::string> shard_dirs;
  std::string out = "loom-sweep";
  std::string spec;
  bool quiet = false;
};

void add_sweep_command(CLI::App& app, SweepArgs& args);
void add_merge_command(CLI::App& app, MergeArgs& args);
int sweep_command(const SweepArgs& args);
int merge_command(const MergeArgs& args);

}  // namespace loom
