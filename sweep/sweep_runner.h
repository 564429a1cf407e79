// `loom sweep`: plans the points (grid, random sample or NSGA-II generations), cuts the
// shard, evaluates the points in worker processes, streams each finished point to
// points.jsonl / points.csv, resumes where an interrupted run stopped, computes the
// Pareto front, re-simulates it at cycle level, and writes pareto.json / pareto.csv and
// sweep.json. The HTML report is the caller's (apps/).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "sweep/sweep_results.h"

namespace loom {

struct SweepRunOptions {
  std::string spec_file;
  std::string out_dir = "loom-sweep";
  int jobs = 1;
  bool resume = false;
  ShardInfo shard;
  bool quiet = false;
};

struct SweepOutcome {
  int64_t planned = 0;      // points this run (shard) covers
  int64_t done = 0;         // of those, finished (now or before a resume)
  int64_t feasible = 0, errors = 0;
  int64_t front = 0, resimulated = 0;
  bool interrupted = false;
  std::string summary;      // for the terminal
  std::string warning;      // e.g. a dropped trailing line
  std::string no_feasible;  // non-empty: no point met the constraints (why)
};

// Throws InputError for a bad spec, shard or results directory (before anything runs).
SweepOutcome run_sweep(const SweepRunOptions& options, const std::atomic<bool>& stop);

// "i/N" → ShardInfo; InputError (field --shard) unless 0 <= i < N.
ShardInfo parse_shard(const std::string& text);

}  // namespace loom
