// `loom sweep`: plans the points (grid, random sample or NSGA-II generations), cuts the
// shard, evaluates the points in worker processes, streams each finished point to
// points.jsonl / points.csv, resumes where an interrupted run stopped, computes the
// Pareto front, re-simulates it at cycle level, and writes pareto.json / pareto.csv and
// sweep.json. The HTML report is the caller's (apps/).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sweep/design_space.h"
#include "sweep/sweep_results.h"
#include "sweep/worker_pool.h"

namespace loom {

// Runs a batch of point requests (lines of evaluate_point_request) and reports each reply
// as it finishes; the contract of WorkerPool::run. The Python bindings' Dask client is one.
using PointExecutor = std::function<bool(const std::vector<std::string>& requests, const WorkerPool::OnReply& on_reply,
                                         const std::atomic<bool>& stop, const std::function<void()>& tick)>;

struct SweepRunOptions {
  std::string spec_file;
  std::string out_dir = "loom-sweep";
  int jobs = 1;
  bool resume = false;
  ShardInfo shard;
  bool quiet = false;
  PointExecutor executor;  // empty: `jobs` forked worker processes
  // Called after each finished point is appended to points.jsonl (the CLI's test hook).
  std::function<void()> on_point_kept;
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

// One point request ("<index> <fidelity>") evaluated: the point's points.jsonl line. What
// every worker runs, forked or remote.
std::string evaluate_point_request(const SweepSpec& spec, const DesignSpace& space, const std::string& request);

// "i/N" → ShardInfo; InputError (field --shard) unless 0 <= i < N.
ShardInfo parse_shard(const std::string& text);

}  // namespace loom
