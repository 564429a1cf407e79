#include "sweep/sweep_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

#include "arch/area_model.h"
#include "sim/error.h"
#include "sim/text_file.h"
#include "sweep/design_space.h"
#include "sweep/nsga2.h"
#include "sweep/point_evaluation.h"
#include "sweep/point_log.h"
#include "sweep/progress.h"
#include "sweep/random_sample.h"
#include "sweep/worker_pool.h"

namespace loom {

namespace fs = std::filesystem;

ShardInfo parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  ShardInfo s;
  try {
    size_t used = 0;
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    s.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    s.count = std::stoi(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) throw std::invalid_argument("count");
  } catch (const std::exception&) {
    throw InputError("", "--shard", "i/N with whole numbers, e.g. 0/4 (shards are numbered 0 to N-1); got \"" + text + "\"");
  }
  if (s.count < 1 || s.index < 0 || s.index >= s.count) {
    throw InputError("", "--shard", "i/N with N >= 1 and 0 <= i < N (shards are numbered 0 to N-1); got \"" + text +
                                        "\": the shard index is out of range");
  }
  return s;
}

namespace {

// The fixed point list of a grid or random sweep, cut to this shard.
std::vector<int64_t> planned_points(const SweepSpec& spec, const ShardInfo& shard) {
  std::vector<int64_t> mine;
  if (spec.strategy.kind == StrategyKind::grid) {  // 0..size-1: this shard's, without the rest
    mine.reserve(static_cast<size_t>(spec.point_count() / shard.count + 1));  // 80 MB at 10^7, not 2x that
    for (int64_t p = shard.index; p < spec.point_count(); p += shard.count) mine.push_back(p);
    return mine;
  }
  const std::vector<int64_t> all = random_sample(spec.point_count(), spec.strategy.samples, spec.strategy.seed);
  for (size_t p = static_cast<size_t>(shard.index); p < all.size(); p += static_cast<size_t>(shard.count)) {
    mine.push_back(all[p]);
  }
  return mine;
}

// An area limit no point can meet is found before any simulation: area needs none.
void check_area_constraint(const SweepSpec& spec, const DesignSpace& space, const std::vector<int64_t>& points) {
  const auto c = std::find_if(spec.constraints.begin(), spec.constraints.end(),
                              [](const SweepConstraint& k) { return k.metric == "area_mm2"; });
  if (c == spec.constraints.end()) return;
  constexpr size_t kChecked = 20000;
  std::vector<int64_t> probe = points;
  if (probe.empty()) probe = random_sample(space.size(), std::min<int64_t>(space.size(), kChecked), spec.strategy.seed);
  if (probe.size() > kChecked) probe.resize(kChecked);
  double smallest = std::numeric_limits<double>::infinity(), largest = 0;
  for (int64_t index : probe) {
    double area;
    try {
      area = area_of(space.architecture(index)).total_mm2();
    } catch (const InputError&) {
      continue;  // an invalid combination is reported when the point runs
    }
    if ((!c->max || area <= *c->max) && (!c->min || area >= *c->min)) return;
    smallest = std::min(smallest, area);
    largest = std::max(largest, area);
  }
  char text[256];
  std::snprintf(text, sizeof text,
                "a limit some design point meets; the %zu points checked have areas from %.4g to %.4g mm^2", probe.size(),
                smallest, largest);
  throw InputError(spec.file, "constraints.area_mm2", text);
}

std::string request(int64_t index, Fidelity f) { return std::to_string(index) + " " + name_of(f); }

// One batch of requests for the points `indices` (parallel to `requests`).
bool evaluate_batch(const PointExecutor& execute, const std::vector<int64_t>& indices,
                    const std::vector<std::string>& requests, Fidelity fidelity, PointLog& log, const DesignSpace& space,
                    Progress& progress, int64_t& done, const std::atomic<bool>& stop,
                    const std::function<void()>& on_kept) {
  return execute(
      requests,
      [&](size_t position, const std::string& reply, bool ok) {
        Json record;
        if (ok) {
          try {
            record = Json::parse(reply);
          } catch (const Json::parse_error&) {
            ok = false;
          }
        }
        if (!ok) {
          record = failed_point(space, indices[position], fidelity,
                                "internal error: " + (reply.empty() ? std::string("no reply from the worker") : reply));
        }
        log.append(record);
        progress.update(++done);
        if (on_kept) on_kept();
      },
      stop, [&] { progress.update(done); });
}

// Requests handed to the executor at once. A sweep may plan 10^7 points; their request
// strings (about 64 bytes each) are made a batch at a time instead. A batch runs to its end
// before the next starts, which idles a worker for at most one point per batch.
constexpr size_t kRequestBatch = 100'000;

// Runs the points of `indices` the log lacks at `fidelity` on the pool, appending each
// reply to `log`.
bool evaluate_all(const PointExecutor& execute, const std::vector<int64_t>& indices, Fidelity fidelity, PointLog& log,
                  const DesignSpace& space, Progress& progress, int64_t& done, const std::atomic<bool>& stop,
                  const std::function<void()>& on_kept) {
  for (size_t begin = 0; begin < indices.size(); begin += kRequestBatch) {
    if (begin > 0 && stop) return false;  // interrupted between batches
    std::vector<int64_t> batch;
    std::vector<std::string> requests;
    for (size_t i = begin; i < std::min(indices.size(), begin + kRequestBatch); ++i) {
      if (log.has(indices[i])) continue;
      batch.push_back(indices[i]);
      requests.push_back(request(indices[i], fidelity));
    }
    if (!requests.empty() && !evaluate_batch(execute, batch, requests, fidelity, log, space, progress, done, stop, on_kept))
      return false;
  }
  return true;
}

Fitness fitness_of(const Json& record, const SweepSpec& spec) {
  Fitness f;
  if (!record.at("error").is_null()) {
    f.violation = std::numeric_limits<double>::infinity();
    return f;
  }
  f.objectives = objective_vector(record.at("metrics"), spec.objectives);
  for (const SweepConstraint& c : spec.constraints) {
    const double v = record["metrics"][c.metric].get<double>();
    const double scale = std::max({std::fabs(c.max.value_or(0)), std::fabs(c.min.value_or(0)), 1e-30});
    if (c.max && v > *c.max) f.violation += (v - *c.max) / scale;
    if (c.min && v < *c.min) f.violation += (*c.min - v) / scale;
  }
  return f;
}

void check_results_dir(const SweepRunOptions& o, const SweepSpec& spec) {
  const fs::path dir(o.out_dir);
  const bool has_results = fs::exists(dir / "sweep.json") || fs::exists(dir / "points.jsonl");
  if (!o.resume) {
    if (has_results) {
      throw InputError(o.out_dir, "--out",
                       "a directory without sweep results; this one holds a sweep already: pass --resume to "
                       "continue it, or choose another --out");
    }
    return;
  }
  if (!fs::exists(dir / "sweep.json")) return;  // nothing to resume: start afresh
  const Json m = read_sweep_manifest(o.out_dir);
  const std::string file = (dir / "sweep.json").string();
  if (m.at("spec").value("fingerprint", "") != spec.fingerprint) {
    throw InputError(file, "spec.fingerprint",
                     "results of this spec; they were written for a different spec, base architecture or workload "
                     "(or an edited one): use another --out");
  }
  if (m.at("shard").value("index", -1) != o.shard.index || m.at("shard").value("count", -1) != o.shard.count) {
    throw InputError(file, "shard", "the same --shard as the run being resumed (" + m.at("shard").dump() + ")");
  }
}

}  // namespace

std::string evaluate_point_request(const SweepSpec& spec, const DesignSpace& space, const std::string& request) {
  const size_t space_at = request.find(' ');
  const int64_t index = std::stoll(request.substr(0, space_at));
  const Fidelity f = request.substr(space_at + 1) == "cycle" ? Fidelity::cycle : Fidelity::analytic;
  return evaluate_point(spec, space, index, f).dump();
}

SweepOutcome run_sweep(const SweepRunOptions& o, const std::atomic<bool>& stop) {
  const SweepSpec spec = load_sweep_spec(o.spec_file);
  const DesignSpace space(spec);
  if (o.shard.count > 1 && spec.strategy.kind == StrategyKind::nsga2) {
    throw InputError(o.spec_file, "strategy.kind",
                     "\"grid\" or \"random\" with --shard: shards split a fixed point list, and NSGA-II's "
                     "generations depend on each other (run it on one machine with -j)");
  }
  if (o.jobs < 1 || o.jobs > 1024) throw InputError("", "-j", "1 to 1024 worker processes");
  const bool fixed = spec.strategy.kind != StrategyKind::nsga2;
  const std::vector<int64_t> points = fixed ? planned_points(spec, o.shard) : std::vector<int64_t>{};
  check_area_constraint(spec, space, points);
  check_results_dir(o, spec);

  make_output_dir(o.out_dir);
  const fs::path dir(o.out_dir);
  const int64_t planned = fixed ? static_cast<int64_t>(points.size())
                                : static_cast<int64_t>(spec.strategy.population) * (spec.strategy.generations + 1);
  PointLog log((dir / "points.jsonl").string(), (dir / "points.csv").string(), spec, o.resume);
  SweepOutcome out;
  out.planned = planned;
  out.warning = log.warning();
  if (!out.warning.empty() && !o.quiet) std::fprintf(stderr, "loom: warning: %s\n", out.warning.c_str());
  const auto manifest = [&](bool complete) {
    return sweep_manifest(spec, o.shard, planned, static_cast<int64_t>(log.size()), complete);
  };
  write_file_atomically((dir / "sweep.json").string(), manifest(false).dump(2) + "\n");

  std::optional<WorkerPool> workers;
  PointExecutor pool = o.executor;
  if (!pool) {
    workers.emplace(o.jobs, [&](const std::string& line) { return evaluate_point_request(spec, space, line); });
    pool = [&](const std::vector<std::string>& requests, const WorkerPool::OnReply& on_reply,
               const std::atomic<bool>& stop_flag, const std::function<void()>& tick) {
      return workers->run(requests, on_reply, stop_flag, tick);
    };
  }

  int64_t done = 0;
  bool finished = true;
  if (fixed) {
    std::vector<int64_t> todo;
    todo.reserve(points.size() - std::min(points.size(), log.size()));
    for (int64_t i : points) {
      if (!log.has(i)) todo.push_back(i);
    }
    done = planned - static_cast<int64_t>(todo.size());
    Progress progress("sweep " + spec.name, planned, done, o.quiet);
    finished = evaluate_all(pool, todo, spec.search_fidelity, log, space, progress, done, stop, o.on_point_kept);
    progress.finish();
  } else {
    // NSGA-II replays its deterministic generations; points already in the log are reused.
    Nsga2 nsga(space, spec.strategy);
    std::map<int64_t, Fitness> fitness;
    const auto fitness_fn = [&](int64_t i) -> const Fitness& {
      auto it = fitness.find(i);
      if (it == fitness.end()) it = fitness.emplace(i, fitness_of(*log.record(i), spec)).first;
      return it->second;
    };
    Progress progress("sweep " + spec.name + " (NSGA-II)", planned, 0, o.quiet);
    std::vector<int64_t> population;
    for (int g = 0; g <= spec.strategy.generations && finished; ++g) {
      std::vector<int64_t> batch = g == 0 ? nsga.initial_population() : nsga.offspring(population);
      std::vector<int64_t> todo;
      for (int64_t i : batch) {
        if (!log.has(i)) todo.push_back(i);
      }
      done += static_cast<int64_t>(batch.size() - todo.size());
      finished = evaluate_all(pool, todo, spec.search_fidelity, log, space, progress, done, stop, o.on_point_kept);
      if (!finished) break;
      batch.insert(batch.end(), population.begin(), population.end());
      population = nsga.select(batch, fitness_fn);
    }
    progress.finish();
  }
  out.done = static_cast<int64_t>(log.size());
  if (!finished) {
    out.interrupted = true;
    write_file_atomically((dir / "sweep.json").string(), manifest(false).dump(2) + "\n");
    return out;
  }

  PointTally counts;  // counted on the way: one read of the log for both
  std::vector<int64_t> front = front_of(counted(log.source(), counts), spec.objectives);
  PointLog resim((dir / "resim.jsonl").string(), "", spec, o.resume);
  if (spec.resimulate_front && !front.empty()) {
    std::vector<int64_t> todo;
    for (int64_t i : front) {
      if (!resim.has(i)) todo.push_back(i);
    }
    int64_t resim_done = static_cast<int64_t>(front.size() - todo.size());
    Progress progress("re-simulating the front at cycle level", static_cast<int64_t>(front.size()), resim_done, o.quiet);
    finished = evaluate_all(pool, todo, Fidelity::cycle, resim, space, progress, resim_done, stop, o.on_point_kept);
    progress.finish();
    if (!finished) {
      out.interrupted = true;
      return out;
    }
  }
  log.rewrite_sorted();
  resim.rewrite_sorted();
  const Json final_manifest = manifest(true);
  // The front's records and their re-simulations: a few, where the log may hold 10^7.
  std::map<int64_t, Json> front_records, resimulated;
  for (int64_t i : front) front_records.emplace(i, *log.record(i));
  resim.for_each([&](const Json& r) { resimulated.emplace(r.at("index").get<int64_t>(), r); });
  write_front_files(o.out_dir, spec, final_manifest, front_records, front, resimulated);
  write_file_atomically((dir / "sweep.json").string(), final_manifest.dump(2) + "\n");

  out.feasible = counts.feasible;
  out.errors = counts.errors;
  out.front = static_cast<int64_t>(front.size());
  out.resimulated = static_cast<int64_t>(resim.size());
  if (out.feasible == 0) {
    out.no_feasible = "no evaluated point meets the constraints (" + std::to_string(out.done) + " points, " +
                      std::to_string(out.errors) + " could not be evaluated); see points.csv's violations column";
  }
  return out;
}

}  // namespace loom
