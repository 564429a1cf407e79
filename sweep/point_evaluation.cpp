#include "sweep/point_evaluation.h"

#include <cstdio>
#include <new>

#include "arch/area_model.h"
#include "sim/error.h"

namespace loom {

std::vector<std::string> constraint_violations(const std::vector<SweepConstraint>& constraints, const Json& metrics) {
  std::vector<std::string> out;
  char text[160];
  for (const SweepConstraint& c : constraints) {
    const double v = metrics.at(c.metric).get<double>();
    if (c.max && !(v <= *c.max)) {
      std::snprintf(text, sizeof text, "%s = %.6g > max %.6g", c.metric.c_str(), v, *c.max);
      out.emplace_back(text);
    }
    if (c.min && !(v >= *c.min)) {
      std::snprintf(text, sizeof text, "%s = %.6g < min %.6g", c.metric.c_str(), v, *c.min);
      out.emplace_back(text);
    }
  }
  return out;
}

Json failed_point(const DesignSpace& space, int64_t index, Fidelity fidelity, const std::string& error) {
  return {{"index", index},        {"params", space.params(index)}, {"arch_name", ""},
          {"fidelity", name_of(fidelity)}, {"feasible", false},         {"violations", Json::array()},
          {"error", error}};
}

Json evaluate_point(const SweepSpec& spec, const DesignSpace& space, int64_t index, Fidelity fidelity) {
  Json line = failed_point(space, index, fidelity, "");
  line["error"] = nullptr;
  try {
    const Architecture arch = space.architecture(index);
    line["arch_name"] = arch.name();
    double latency = 0, energy_pj = 0, samples = 0;
    Json workloads = Json::object();
    for (const Network& network : spec.workloads) {
      const NetworkEvaluation e = evaluate_network(arch, network, fidelity, spec.evaluation);
      latency += e.seconds();
      energy_pj += e.energy_pj();
      samples += static_cast<double>(network.batch);
      workloads[network.name] = {{"latency_s", e.seconds()}, {"energy_j", e.energy_pj() * 1e-12},
                                 {"macs", network.total_macs()}};
      if (e.fidelity != fidelity) line["fidelity"] = name_of(e.fidelity);  // a hierarchy is analytic only
    }
    const double area = area_of(arch).total_mm2();
    const double energy = energy_pj * 1e-12;
    const double throughput = latency > 0 ? samples / latency : 0.0;
    const Json metrics = {{"latency_s", latency},
                          {"energy_j", energy},
                          {"edp_js", energy * latency},
                          {"inferences_per_s", throughput},
                          {"throughput_per_area", area > 0 ? throughput / area : 0.0},
                          {"area_mm2", area},
                          {"power_w", latency > 0 ? energy / latency : 0.0}};
    line["metrics"] = metrics;
    line["workloads"] = workloads;
    const std::vector<std::string> violations = constraint_violations(spec.constraints, metrics);
    line["violations"] = violations;
    line["feasible"] = violations.empty();
  } catch (const InputError& e) {
    line["error"] = (e.file().empty() ? "" : e.file() + ": ") + e.field() + ": " + e.expected();
  } catch (const std::bad_alloc&) {
    line["error"] = "out of memory evaluating this point";
  } catch (const std::exception& e) {
    line["error"] = std::string("internal error: ") + e.what();
  }
  return line;
}

bool is_point_record(const Json& line) {
  if (!line.is_object()) return false;
  const auto has = [&](const char* key, auto check) { return line.contains(key) && check(line[key]); };
  if (!has("index", [](const Json& v) { return v.is_number_integer() && v.get<int64_t>() >= 0; })) return false;
  if (!has("params", [](const Json& v) { return v.is_object(); })) return false;
  if (!has("feasible", [](const Json& v) { return v.is_boolean(); })) return false;
  if (!has("fidelity", [](const Json& v) { return v.is_string(); })) return false;
  if (!has("error", [](const Json& v) { return v.is_null() || v.is_string(); })) return false;
  if (line["error"].is_string()) return true;
  if (!has("metrics", [](const Json& v) { return v.is_object(); })) return false;
  for (const std::string& m : sweep_metric_names()) {
    if (!line["metrics"].contains(m) || !line["metrics"][m].is_number()) return false;
  }
  return true;
}

}  // namespace loom
