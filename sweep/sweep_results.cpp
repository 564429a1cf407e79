#include "sweep/sweep_results.h"

#include <filesystem>

#include "sim/error.h"
#include "sim/text_file.h"
#include "sim/text_format.h"
#include "sweep/pareto.h"
#include "sweep/point_evaluation.h"
#include "sweep/point_log.h"

namespace loom {

namespace fs = std::filesystem;

Json sweep_manifest(const SweepSpec& spec, const ShardInfo& shard, int64_t planned, int64_t done, bool complete) {
  Json objectives = Json::array(), parameters = Json::array(), constraints = Json::array(), workloads = Json::array();
  for (const SweepObjective& o : spec.objectives) {
    objectives.push_back({{"name", o.name}, {"metric", o.metric}, {"direction", o.maximize ? "max" : "min"}});
  }
  for (const ParameterAxis& a : spec.parameters) parameters.push_back({{"path", a.path}, {"values", a.values}});
  for (const SweepConstraint& c : spec.constraints) {
    Json j = {{"metric", c.metric}};
    if (c.min) j["min"] = *c.min;
    if (c.max) j["max"] = *c.max;
    constraints.push_back(j);
  }
  for (const Network& n : spec.workloads) workloads.push_back({{"name", n.name}, {"file", n.source_file}});
  Json strategy_settings = {{"kind", name_of(spec.strategy.kind)}};
  if (spec.strategy.kind == StrategyKind::random) {
    strategy_settings["samples"] = spec.strategy.samples;
    strategy_settings["seed"] = spec.strategy.seed;
  } else if (spec.strategy.kind == StrategyKind::nsga2) {
    strategy_settings["population"] = spec.strategy.population;
    strategy_settings["generations"] = spec.strategy.generations;
    strategy_settings["mutation"] = spec.strategy.mutation;
    strategy_settings["seed"] = spec.strategy.seed;
  }
  return {{"schema", kSweepResultSchema},
          {"tool", {{"name", "loom"}, {"version", LOOM_VERSION}}},
          {"spec", {{"name", spec.name}, {"file", spec.file}, {"fingerprint", spec.fingerprint}}},
          {"base", spec.base_file},
          {"strategy", name_of(spec.strategy.kind)},
          {"strategy_settings", strategy_settings},
          {"objectives", objectives},
          {"parameters", parameters},
          {"constraints", constraints},
          {"workloads", workloads},
          {"design_space_points", spec.point_count()},
          {"shard", {{"index", shard.index}, {"count", shard.count}}},
          {"points_planned", planned},
          {"points_done", done},
          {"complete", complete},
          {"fidelity",
           {{"search", name_of(spec.search_fidelity)}, {"pareto", spec.resimulate_front ? "cycle" : "none"}}}};
}

void PointTally::add(const Json& r) {
  if (!r.at("error").is_null()) ++errors;
  if (r.at("feasible").get<bool>()) ++feasible;
}

PointTally tally(const PointSource& points) {
  PointTally t;
  points([&](const Json& r) { t.add(r); });
  return t;
}

PointSource counted(const PointSource& points, PointTally& tally) {
  return [points, &tally](const PointVisitor& visit) {
    points([&](const Json& r) {
      tally.add(r);
      visit(r);
    });
  };
}

std::vector<int64_t> front_of(const PointSource& points, const std::vector<SweepObjective>& objectives) {
  // The non-dominated set kept as the points stream by, so memory follows the front, not
  // the sweep: a point dominated by a kept one is dropped, a new point drops those it
  // dominates. The set is the same as a batch pass over every point, and pareto_front then
  // orders it the same way (the points arrive in point order, which breaks ties).
  std::vector<int64_t> candidates;
  std::vector<ObjectiveVector> vectors;
  points([&](const Json& r) {
    if (!r.at("feasible").get<bool>() || !r.at("error").is_null()) return;
    ObjectiveVector v = objective_vector(r.at("metrics"), objectives);
    for (const ObjectiveVector& kept : vectors)
      if (dominates(kept, v)) return;
    size_t out = 0;
    for (size_t i = 0; i < vectors.size(); ++i) {
      if (dominates(v, vectors[i])) continue;
      if (out != i) candidates[out] = candidates[i], vectors[out] = std::move(vectors[i]);
      ++out;
    }
    candidates.resize(out);
    vectors.resize(out);
    candidates.push_back(r.at("index").get<int64_t>());
    vectors.push_back(std::move(v));
  });
  std::vector<int64_t> front;
  for (size_t p : pareto_front(vectors)) front.push_back(candidates[p]);
  return front;
}

void write_front_files(const std::string& out_dir, const SweepSpec& spec, const Json& manifest,
                       const std::map<int64_t, Json>& records, const std::vector<int64_t>& front,
                       const std::map<int64_t, Json>& resimulated) {
  // Which re-simulated front points stay feasible and non-dominated at cycle level.
  std::vector<int64_t> cycle_candidates;
  std::vector<ObjectiveVector> cycle_vectors;
  for (int64_t index : front) {
    const auto it = resimulated.find(index);
    if (it == resimulated.end() || !it->second.at("error").is_null()) continue;
    if (!constraint_violations(spec.constraints, it->second.at("metrics")).empty()) continue;
    cycle_candidates.push_back(index);
    cycle_vectors.push_back(objective_vector(it->second.at("metrics"), spec.objectives));
  }
  std::vector<int64_t> cycle_front;
  for (size_t p : pareto_front(cycle_vectors)) cycle_front.push_back(cycle_candidates[p]);

  Json points = Json::array();
  std::string csv = point_csv_header(spec);
  csv.insert(csv.size() - 1, ",cycle_latency_s,cycle_energy_j,cycle_error,front_at_cycle");
  for (int64_t index : front) {
    Json p = records.at(index);
    const auto it = resimulated.find(index);
    const bool at_cycle = std::find(cycle_front.begin(), cycle_front.end(), index) != cycle_front.end();
    std::string row = point_csv_row(spec, p);
    row.pop_back();
    if (it == resimulated.end()) {
      p["cycle"] = nullptr;
      row += ",,,,";
    } else {
      const Json& c = it->second;
      p["cycle"] = {{"metrics", c.value("metrics", Json::object())},
                    {"workloads", c.value("workloads", Json::object())},
                    {"error", c.at("error")}};
      const bool ok = c.at("error").is_null();
      row += "," + (ok ? format_number(c["metrics"]["latency_s"].get<double>()) : "") + "," +
             (ok ? format_number(c["metrics"]["energy_j"].get<double>()) : "") + "," +
             (ok ? "" : csv_quoted(c["error"].get<std::string>())) + ",";
    }
    p["front_at_cycle"] = at_cycle;
    row += at_cycle ? "true\n" : "false\n";
    csv += row;
    points.push_back(std::move(p));
  }
  const Json pareto = {{"schema", kSweepResultSchema},
                       {"objectives", manifest.at("objectives")},
                       {"resimulated", !resimulated.empty()},
                       {"front", points}};
  write_file_atomically((fs::path(out_dir) / "pareto.csv").string(), csv);
  write_file_atomically((fs::path(out_dir) / "pareto.json").string(), pareto.dump(2) + "\n");
}

Json read_sweep_manifest(const std::string& dir) {
  const std::string path = (fs::path(dir) / "sweep.json").string();
  if (!fs::exists(path)) throw InputError(path, "(file)", "a sweep result directory (sweep.json is missing)");
  const Json m = load_json_file(path);
  if (!m.is_object() || m.value("schema", "") != kSweepResultSchema) {
    throw InputError(path, "schema", std::string("\"") + kSweepResultSchema + "\"");
  }
  return m;
}

}  // namespace loom
