// A design-space sweep as the user writes it (schema "loom-sweep/1", docs/sweeps.md): a base
// architecture file, the parameters to vary (JSON paths into that file, each with a list or
// a linear / geometric / log range of values), the workloads, the objectives, the
// constraints, the search strategy and the fidelity of the search and of the Pareto set's
// re-simulation. Loading is strict and checks every parameter value against the
// architecture's own schema, so a typo in a path fails before anything runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapper/network_evaluation.h"
#include "sim/json_reader.h"
#include "workloads/network.h"

namespace loom {

struct ParameterAxis {
  std::string path;         // dotted JSON path into the base architecture, e.g. "array.rows"
  std::vector<Json> values; // in the order the user gave or the range produced
};

enum class StrategyKind { grid, random, nsga2 };
const char* name_of(StrategyKind k);

struct SweepStrategy {
  StrategyKind kind = StrategyKind::grid;
  int64_t samples = 0;      // random: distinct points drawn from the grid
  int population = 0;       // nsga2: individuals per generation (even)
  int generations = 0;      // nsga2: generations after the first
  double mutation = 0;      // nsga2: per-parameter mutation probability (0: 1 / parameters)
  uint64_t seed = 1;        // random, nsga2
};

// A metric every point reports (docs/sweeps.md, "Metrics"); objectives and constraints name them.
struct SweepObjective {
  std::string name;    // as written: "latency", "energy", "edp", "throughput_per_area", "area", "power"
  std::string metric;  // the metric it reads: "latency_s", "energy_j", ...
  bool maximize = false;
};

struct SweepConstraint {
  std::string metric;
  std::optional<double> min, max;
};


struct SweepSpec {
  std::string file;  // the spec's path
  std::string name, description;
  std::string base_file, base_dir;  // the base architecture and its directory
  Json base;                        // its JSON, as loaded
  std::vector<ParameterAxis> parameters;
  std::vector<Network> workloads;     // loaded; each knows its source_file
  std::vector<SweepObjective> objectives;
  std::vector<SweepConstraint> constraints;
  SweepStrategy strategy;
  Fidelity search_fidelity = Fidelity::analytic;
  bool resimulate_front = true;     // re-run the Pareto set at cycle fidelity
  EvaluationOptions evaluation;
  // FNV-1a of the spec, the base architecture and every workload file: results written
  // under one fingerprint are never mixed with another's on --resume or merge.
  std::string fingerprint;

  int64_t point_count() const;  // product of the axes' sizes
};

// Every metric name a point reports, in report order.
const std::vector<std::string>& sweep_metric_names();

// Throws InputError naming the spec file and the field on any bad input, including an
// unknown parameter path, an empty range and a value the architecture schema rejects.
SweepSpec load_sweep_spec(const std::string& path);
// The same for a spec document already in memory: `file` names it in errors (and gives the
// default name), `base_dir` resolves its relative paths (base architecture, workloads).
SweepSpec parse_sweep_spec(const Json& doc, const std::string& file, const std::string& base_dir);

// Limits stated in errors: the design space (random and NSGA-II draw from it by index),
// the points one sweep evaluates (a grid, or random samples), values per parameter.
inline constexpr int64_t kMaxSweepSpacePoints = int64_t{1} << 53;
inline constexpr int64_t kMaxSweepPoints = 10'000'000;
inline constexpr int64_t kMaxAxisValues = 100'000;

// The value a parameter path names in an architecture document (created when absent), or
// nullptr when a value on the way is not an object; `blocked` then names that prefix.
Json* parameter_slot(Json& arch, const std::string& path, std::string* blocked);

// 64-bit FNV-1a as 16 hex digits.
std::string fnv1a_hex(const std::string& bytes);

}  // namespace loom
