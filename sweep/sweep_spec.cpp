#include "sweep/sweep_spec.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "arch/architecture.h"
#include "sim/error.h"
#include "sim/text_file.h"

namespace loom {

namespace fs = std::filesystem;

const char* name_of(StrategyKind k) {
  switch (k) {
    case StrategyKind::grid: return "grid";
    case StrategyKind::random: return "random";
    case StrategyKind::nsga2: return "nsga2";
  }
  return "?";
}

const std::vector<std::string>& sweep_metric_names() {
  static const std::vector<std::string> names = {"latency_s",      "energy_j", "edp_js",  "inferences_per_s",
                                                 "throughput_per_area", "area_mm2", "power_w"};
  return names;
}

int64_t SweepSpec::point_count() const {
  int64_t n = 1;
  for (const ParameterAxis& a : parameters) n *= static_cast<int64_t>(a.values.size());  // bounded at load
  return n;
}

Json* parameter_slot(Json& arch, const std::string& path, std::string* blocked) {
  Json* node = &arch;
  std::string walked;
  for (const std::string& key : split_trimmed(path, '.')) {
    if (!node->is_object()) {
      if (blocked != nullptr) *blocked = walked;
      return nullptr;
    }
    walked += (walked.empty() ? "" : ".") + key;
    node = &(*node)[key];
  }
  return node;
}

std::string fnv1a_hex(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

namespace {

bool is_whole(double v) { return std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9e15; }

Json number_value(double v, bool integers) {
  return integers ? Json(static_cast<int64_t>(std::llround(v))) : Json(v);
}

// Values of one parameter: a non-empty list, or a range object (docs/sweeps.md, "Values").
std::vector<Json> axis_values(JsonReader& params, const std::string& path) {
  const Json& v = params.value(path);
  const std::string field = params.field(path);
  auto fail = [&](const std::string& expected) -> std::vector<Json> {
    throw InputError(params.file(), field, expected);
  };
  std::vector<Json> values;
  if (v.is_array()) {
    for (const Json& e : v) {
      if (!(e.is_number() || e.is_string() || e.is_boolean())) {
        return fail("a list of numbers, strings or booleans; got " + e.dump());
      }
      values.push_back(e);
    }
  } else if (v.is_object()) {
    JsonReader r(v, params.file(), field);
    const double from = r.number("from"), to = r.number("to");
    const bool has_step = r.has("step"), has_factor = r.has("factor"), has_points = r.has("points");
    if (int(has_step) + int(has_factor) + int(has_points) != 1) {
      return fail("a range with exactly one of \"step\" (linear), \"factor\" (geometric) or \"points\" "
                  "(evenly spaced, \"scale\": \"linear\" or \"log\")");
    }
    if (from > to) return fail("a non-empty range: \"from\" " + Json(from).dump() + " is above \"to\" " + Json(to).dump());
    const auto too_many = [&](double n) {
      if (n > static_cast<double>(kMaxAxisValues)) {
        fail("at most " + std::to_string(kMaxAxisValues) + " values per parameter; this range gives " +
             Json(std::floor(n)).dump());
      }
    };
    if (has_step) {
      const double step = r.positive_number("step");
      const bool integers = is_whole(from) && is_whole(to) && is_whole(step);
      too_many((to - from) / step + 1);
      for (double x = from, i = 0; x <= to * (1 + 1e-12) + 1e-12; x = from + (++i) * step) values.push_back(number_value(x, integers));
    } else if (has_factor) {
      const double factor = r.number("factor");
      if (!(factor > 1)) return fail("\"factor\" above 1; got " + Json(factor).dump());
      if (!(from > 0)) return fail("a geometric range needs \"from\" above 0; got " + Json(from).dump());
      const bool integers = is_whole(from) && is_whole(to) && is_whole(factor);
      too_many(std::log(to / from) / std::log(factor) + 1);
      for (double x = from; x <= to * (1 + 1e-12); x *= factor) values.push_back(number_value(x, integers));
    } else {
      const int64_t points = r.positive_integer("points");
      const std::string scale = r.choice("scale", {"linear", "log"}, "linear");
      too_many(static_cast<double>(points));
      if (scale == "log" && !(from > 0)) return fail("a log range needs \"from\" above 0; got " + Json(from).dump());
      const bool integers = is_whole(from) && is_whole(to);
      std::set<int64_t> seen;  // rounding to integers may repeat a value: keep the first
      for (int64_t i = 0; i < points; ++i) {
        const double t = points == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(points - 1);
        const double x = scale == "log" ? from * std::pow(to / from, t) : from + (to - from) * t;
        if (integers && !seen.insert(std::llround(x)).second) continue;
        values.push_back(number_value(x, integers));
      }
    }
    r.finish();
  } else {
    return fail("a list of values or a range object {\"from\", \"to\", \"step\" | \"factor\" | \"points\"}");
  }
  if (values.empty()) return fail("a non-empty list of values");
  if (static_cast<int64_t>(values.size()) > kMaxAxisValues) {
    return fail("at most " + std::to_string(kMaxAxisValues) + " values per parameter");
  }
  std::set<std::string> distinct;
  for (const Json& e : values) {
    if (!distinct.insert(e.dump()).second) return fail("distinct values; " + e.dump() + " appears twice");
  }
  return values;
}

// Every value of every axis, applied alone to the base, must give a valid architecture.
void check_axis(const SweepSpec& spec, const ParameterAxis& axis, const std::string& field) {
  for (const Json& value : axis.values) {
    Json arch = spec.base;
    std::string blocked;
    Json* slot = parameter_slot(arch, axis.path, &blocked);
    if (slot == nullptr) {
      Json* there = parameter_slot(arch, blocked, nullptr);
      throw InputError(spec.file, field,
                       "a path into the base architecture " + spec.base_file + "; \"" + blocked + "\" there is " +
                           there->dump() + ", not an object");
    }
    *slot = value;
    try {
      (void)parse_architecture(arch, spec.base_file, spec.base_dir);
    } catch (const InputError& e) {
      throw InputError(spec.file, field,
                       "a parameter of the base architecture " + spec.base_file + " that accepts the value " +
                           value.dump() + "; the architecture rejects it: " + e.field() + ": " + e.expected());
    }
  }
}

SweepObjective objective_named(const std::string& name, const std::string& file, const std::string& field) {
  if (name == "latency") return {name, "latency_s", false};
  if (name == "energy") return {name, "energy_j", false};
  if (name == "edp") return {name, "edp_js", false};
  if (name == "throughput_per_area") return {name, "throughput_per_area", true};
  if (name == "throughput") return {name, "inferences_per_s", true};
  if (name == "area") return {name, "area_mm2", false};
  if (name == "power") return {name, "power_w", false};
  throw InputError(file, field,
                   "one of \"latency\", \"energy\", \"edp\", \"throughput\", \"throughput_per_area\", \"area\", "
                   "\"power\"; got \"" + name + "\"");
}

std::string resolve(const std::string& base_dir, const std::string& path) {
  return fs::path(path).is_absolute() || base_dir.empty() ? path : (fs::path(base_dir) / path).string();
}

}  // namespace

SweepSpec load_sweep_spec(const std::string& path) {
  return parse_sweep_spec(load_json_file(path), path, fs::path(path).parent_path().string());
}

SweepSpec parse_sweep_spec(const Json& doc, const std::string& path, const std::string& dir) {
  SweepSpec spec;
  spec.file = path;
  if (!doc.is_object()) throw InputError(path, "(top level)", "a JSON object (a loom-sweep/1 spec)");
  JsonReader r(doc, path, "");
  const std::string schema = r.string("schema", "loom-sweep/1");
  if (schema != "loom-sweep/1") r.fail("schema", "\"loom-sweep/1\"");
  spec.name = r.string("name", fs::path(path).stem().string());
  spec.description = r.string("description", "");

  spec.base_file = resolve(dir, r.string("base"));
  if (fs::path(spec.base_file).extension() != ".json") {
    r.fail("base", "a loom architecture .json file (sweeps edit its JSON fields); got " + spec.base_file);
  }
  std::error_code ec;  // a path the OS cannot look up (too long, say) does not exist either
  if (!fs::exists(spec.base_file, ec)) r.fail("base", "an existing architecture file; " + spec.base_file + " does not exist");
  spec.base = load_json_file(spec.base_file);
  spec.base_dir = fs::path(spec.base_file).parent_path().string();
  (void)parse_architecture(spec.base, spec.base_file, spec.base_dir);  // the base itself must be valid

  JsonReader params = r.object("parameters");
  const Json& param_json = doc.at("parameters");
  if (param_json.empty()) r.fail("parameters", "at least one parameter to vary");
  double space = 1;
  for (const auto& [param_path, unused] : param_json.items()) {
    (void)unused;
    ParameterAxis axis;
    axis.path = param_path;
    axis.values = axis_values(params, param_path);
    space *= static_cast<double>(axis.values.size());
    spec.parameters.push_back(std::move(axis));
  }
  params.finish();
  if (space > static_cast<double>(kMaxSweepSpacePoints)) {
    r.fail("parameters", "a design space of at most 2^53 points; these parameters give " + Json(space).dump());
  }
  for (const ParameterAxis& axis : spec.parameters) check_axis(spec, axis, "parameters." + axis.path);

  const Json& workloads = r.value("workloads");
  if (!workloads.is_array() || workloads.empty()) r.fail("workloads", "a non-empty list of workload files");
  std::string fingerprint_input = doc.dump() + '\n' + spec.base.dump() + '\n';
  std::set<std::string> names;
  for (size_t i = 0; i < workloads.size(); ++i) {
    const std::string field = "workloads[" + std::to_string(i) + "]";
    if (!workloads[i].is_string()) throw InputError(path, field, "a workload file path (string)");
    const std::string file = resolve(dir, workloads[i].get<std::string>());
    if (!fs::exists(file, ec)) throw InputError(path, field, "an existing workload file; " + file + " does not exist");
    spec.workloads.push_back(load_workload(file));
    if (!names.insert(spec.workloads.back().name).second) {
      throw InputError(path, field, "workloads with distinct names; \"" + spec.workloads.back().name + "\" repeats");
    }
    fingerprint_input += read_text_file(file) + '\n';
  }

  const Json& objectives = r.value("objectives");
  if (!objectives.is_array() || objectives.empty() || objectives.size() > 3) {
    r.fail("objectives", "a list of one to three objectives, e.g. [\"latency\", \"energy\"]");
  }
  for (size_t i = 0; i < objectives.size(); ++i) {
    const std::string field = "objectives[" + std::to_string(i) + "]";
    if (!objectives[i].is_string()) throw InputError(path, field, "an objective name (string)");
    spec.objectives.push_back(objective_named(objectives[i].get<std::string>(), path, field));
    for (size_t j = 0; j < i; ++j) {
      if (spec.objectives[j].metric == spec.objectives[i].metric) throw InputError(path, field, "distinct objectives");
    }
  }

  if (const Json* constraints = r.optional_value("constraints")) {
    if (!constraints->is_object()) r.fail("constraints", "an object: {\"<metric>\": {\"max\": x} or {\"min\": x}}");
    JsonReader cr(*constraints, path, "constraints");
    for (const auto& [metric, unused] : constraints->items()) {
      (void)unused;
      const std::string field = "constraints." + metric;
      const auto& known = sweep_metric_names();
      if (std::find(known.begin(), known.end(), metric) == known.end()) {
        std::string list;
        for (const std::string& m : known) list += (list.empty() ? "" : ", ") + m;
        throw InputError(path, field, "a metric name: one of " + list);
      }
      JsonReader c = cr.object(metric);
      SweepConstraint k;
      k.metric = metric;
      if (c.has("min")) k.min = c.number("min");
      if (c.has("max")) k.max = c.number("max");
      c.finish();
      if (!k.min && !k.max) throw InputError(path, field, "\"min\" and/or \"max\"");
      if (k.min && k.max && *k.min > *k.max) throw InputError(path, field, "\"min\" at most \"max\"");
      spec.constraints.push_back(k);
    }
    cr.finish();
  }

  JsonReader st = r.object("strategy");
  const std::string kind = st.choice("kind", {"grid", "random", "nsga2"});
  const int64_t points = spec.point_count();
  if (kind == "grid") {
    spec.strategy.kind = StrategyKind::grid;
    if (points > kMaxSweepPoints) {
      st.fail("kind", "a grid of at most 10^7 points; this space has " + std::to_string(points) +
                          " (use \"random\" or \"nsga2\", or fewer values)");
    }
  } else if (kind == "random") {
    spec.strategy.kind = StrategyKind::random;
    spec.strategy.samples = st.positive_integer("samples");
    spec.strategy.seed = static_cast<uint64_t>(st.non_negative_integer("seed", 1));
    if (spec.strategy.samples > std::min(points, kMaxSweepPoints)) {
      st.fail("samples", "at most " + std::to_string(std::min(points, kMaxSweepPoints)) +
                             " distinct points (the design space has " + std::to_string(points) + ")");
    }
  } else {
    spec.strategy.kind = StrategyKind::nsga2;
    spec.strategy.population = static_cast<int>(st.positive_integer("population", 32));
    spec.strategy.generations = static_cast<int>(st.positive_integer("generations", 20));
    spec.strategy.mutation = st.number("mutation", 0);
    spec.strategy.seed = static_cast<uint64_t>(st.non_negative_integer("seed", 1));
    if (spec.strategy.population < 4 || spec.strategy.population % 2 != 0 || spec.strategy.population > 10000) {
      st.fail("population", "an even number from 4 to 10000");
    }
    if (spec.strategy.generations > 10000) st.fail("generations", "at most 10000");
    if (spec.strategy.mutation < 0 || spec.strategy.mutation > 1) st.fail("mutation", "a probability in [0, 1]");
    if (static_cast<double>(spec.strategy.population) * (spec.strategy.generations + 1) >
        static_cast<double>(kMaxSweepPoints)) {
      st.fail("generations", "population x (generations + 1) of at most 10^7 evaluations");
    }
  }
  st.finish();

  if (r.has("fidelity")) {
    JsonReader f = r.object("fidelity");
    spec.search_fidelity = f.choice("search", {"analytic", "cycle"}, "analytic") == "cycle" ? Fidelity::cycle
                                                                                             : Fidelity::analytic;
    spec.resimulate_front = f.choice("pareto", {"cycle", "none"}, "cycle") == "cycle";
    f.finish();
  }
  if (spec.search_fidelity == Fidelity::cycle) spec.resimulate_front = false;  // already cycle level

  if (r.has("options")) {
    JsonReader o = r.object("options");
    spec.evaluation.gpu_precision = o.choice("gpu_precision", {"fp16", "fp32"}, "fp16");
    spec.evaluation.dataflow = o.string("dataflow", "");
    spec.evaluation.seed = static_cast<uint64_t>(o.non_negative_integer("mapper_seed", 1));
    o.finish();
  }
  r.finish();
  spec.fingerprint = fnv1a_hex(fingerprint_input);
  return spec;
}

}  // namespace loom
