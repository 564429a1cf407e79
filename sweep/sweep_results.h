// The files that describe a sweep's results, shared by `loom sweep` and `loom merge`:
// sweep.json (the manifest: what was asked, which shard, how far it got), the Pareto
// front (pareto.json, pareto.csv) and the checks that results belong to one spec.
// Schemas: docs/sweeps.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sweep/point_log.h"
#include "sweep/sweep_spec.h"

namespace loom {

inline constexpr const char* kSweepResultSchema = "loom-sweep-result/1";

struct ShardInfo {
  int index = 0, count = 1;  // 0-based: shard i of N takes the planned points p with p % N == i
};

Json sweep_manifest(const SweepSpec& spec, const ShardInfo& shard, int64_t planned, int64_t done, bool complete);

// Counts of a finished result set: how many points are feasible and how many could not
// be evaluated.
struct PointTally {
  int64_t feasible = 0, errors = 0;
  void add(const Json& record);
};
PointTally tally(const PointSource& points);

// `points`, counting each record into `tally` as it passes (front and tally in one read of
// a large log).
PointSource counted(const PointSource& points, PointTally& tally);

// Point numbers of the front of the records `points` visits (feasible, evaluated points
// only), in the order of the first objective. Holds one objective vector per feasible point.
std::vector<int64_t> front_of(const PointSource& points, const std::vector<SweepObjective>& objectives);

// pareto.json and pareto.csv in `out_dir`. `records` holds (at least) the records of the
// front's points; `resimulated` holds cycle-level records of front points (may be empty).
void write_front_files(const std::string& out_dir, const SweepSpec& spec, const Json& manifest,
                       const std::map<int64_t, Json>& records, const std::vector<int64_t>& front,
                       const std::map<int64_t, Json>& resimulated);

// Reads DIR/sweep.json; InputError naming it when it is missing or not a sweep manifest.
Json read_sweep_manifest(const std::string& dir);

}  // namespace loom
