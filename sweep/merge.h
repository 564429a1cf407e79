// `loom merge`: joins the result directories of a sharded sweep (`--shard i/N`, one per
// cluster task) into one result set with one Pareto front, after checking that they come
// from the same spec, that every shard 0..N-1 is present exactly once and complete, and
// that no point appears twice.
#pragma once

#include <string>
#include <vector>

#include "sweep/sweep_runner.h"

namespace loom {

struct MergeOptions {
  std::vector<std::string> shard_dirs;
  std::string out_dir = "loom-sweep";
  std::string spec_file;  // empty: the spec file recorded in the shards' sweep.json
};

// Throws InputError naming the offending directory and what is wrong.
SweepOutcome merge_sweeps(const MergeOptions& options);

}  // namespace loom
