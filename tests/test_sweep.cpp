// The sweep library: spec loading and its errors, the design space's numbering, Pareto
// fronts against brute force, NSGA-II and random sampling (determinism, distinctness),
// constraint checks, and the results log's resume rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include "sim/error.h"
#include "sweep/design_space.h"
#include "sweep/nsga2.h"
#include "sweep/pareto.h"
#include "sweep/point_evaluation.h"
#include "sweep/point_log.h"
#include "sweep/random_sample.h"
#include "sweep/sweep_runner.h"
#include "tests/cli_harness.h"

using namespace loom;
using loom_test::TempDir;
using loom_test::write_file;
using loom_test::read_file;

namespace {

std::string absolute(const std::string& p) { return std::filesystem::absolute(p).string(); }

// A spec over the 32x32 WS config and LeNet-5 with `parameters` (JSON text) and extra fields.
std::string spec_text(const std::string& parameters, const std::string& extra = "") {
  return R"({"schema": "loom-sweep/1", "name": "t", "base": ")" + absolute("configs/systolic_32x32_ws.json") +
         R"(", "parameters": )" + parameters + R"(, "workloads": [")" + absolute("workloads/networks/lenet5.json") +
         R"("], "objectives": ["latency", "energy"], "strategy": {"kind": "grid"})" + extra + "}";
}

SweepSpec load_spec(const TempDir& dir, const std::string& text) {
  write_file(dir / "spec.json", text);
  return load_sweep_spec(dir / "spec.json");
}

std::string error_of(const TempDir& dir, const std::string& text) {
  try {
    load_spec(dir, text);
  } catch (const InputError& e) {
    return e.field() + ": " + e.expected();
  }
  return "no error";
}

}  // namespace

TEST_CASE("sweep spec: values, ranges and their order") {
  TempDir dir;
  const SweepSpec s = load_spec(dir, spec_text(R"({"array.rows": {"from": 8, "to": 64, "factor": 2},
      "array.cols": {"from": 4, "to": 16, "step": 4}, "dram.bandwidth_bytes_per_cycle": {"from": 1, "to": 100, "points": 3, "scale": "log"},
      "array.dataflow": ["ws", "os"]})"));
  REQUIRE(s.parameters.size() == 4);
  // nlohmann::json keeps object keys sorted: the axes come in alphabetical order.
  CHECK(s.parameters[0].path == "array.cols");
  CHECK(Json(s.parameters[0].values) == Json::parse("[4, 8, 12, 16]"));
  CHECK(Json(s.parameters[1].values) == Json::parse(R"(["ws", "os"])"));
  CHECK(Json(s.parameters[2].values) == Json::parse("[8, 16, 32, 64]"));
  CHECK(Json(s.parameters[3].values) == Json::parse("[1, 10, 100]"));
  CHECK(s.point_count() == 4 * 2 * 4 * 3);
  CHECK(s.resimulate_front);
  CHECK(s.fingerprint.size() == 16);
  // The fingerprint follows the inputs: another objective, another fingerprint.
  std::string other = spec_text(R"({"array.rows": [8, 16]})");
  const std::string f1 = load_spec(dir, other).fingerprint;
  other.replace(other.find("\"energy\""), 8, "\"edp\"");
  CHECK(load_spec(dir, other).fingerprint != f1);
}

TEST_CASE("sweep spec: bad input names the spec file and the field") {
  TempDir dir;
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rowz": [8, 16]})")), "parameters.array.rowz"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rowz": [8, 16]})")), "rowz"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rows.x": [8]})")), "not an object"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rows": []})")), "non-empty"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rows": {"from": 64, "to": 8, "step": 8}})")),
                            "non-empty range"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rows": {"from": 8, "to": 64}})")), "exactly one of"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rows": [8, 8]})")), "distinct"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rows": [0, 8]})")), "accepts the value 0"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.dataflow": ["ws", "xs"]})")), "\"xs\""));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({})")), "at least one parameter"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rows": [8]})", R"(, "bogus": 1)")), "bogus"));
  CHECK(loom_test::contains(error_of(dir, spec_text(R"({"array.rows": [8]})", R"(, "constraints": {"area": {"max": 1}})")),
                            "a metric name"));
  // A grid too large to run is refused up front, with what to do instead.
  const std::string huge = R"({"array.rows": {"from": 1, "to": 4000, "step": 1}, "array.cols": {"from": 1, "to": 4000, "step": 1}})";
  CHECK(loom_test::contains(error_of(dir, spec_text(huge)), "a grid of at most 10^7 points"));
  // Every error names the spec file.
  write_file(dir / "spec.json", spec_text(R"({"array.rowz": [8]})"));
  try {
    load_sweep_spec(dir / "spec.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.file() == dir / "spec.json");
  }
}

TEST_CASE("sweep: shard parsing") {
  CHECK(parse_shard("0/4").index == 0);
  CHECK(parse_shard("3/4").count == 4);
  for (const char* bad : {"4/4", "-1/4", "1/0", "1", "a/b", "1/4x"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_shard(bad), InputError);
  }
  try {
    parse_shard("4/4");
  } catch (const InputError& e) {
    CHECK(loom_test::contains(e.expected(), "out of range"));
  }
}

TEST_CASE("design space: numbering is a bijection and points are valid architectures") {
  TempDir dir;
  const SweepSpec s = load_spec(dir, spec_text(R"({"array.rows": [8, 16, 32], "array.cols": [4, 8], "array.dataflow": ["ws", "is", "os"]})"));
  const DesignSpace space(s);
  REQUIRE(space.size() == 18);
  std::set<std::string> seen;
  for (int64_t i = 0; i < space.size(); ++i) {
    CHECK(space.index_of(space.digits(i)) == i);
    seen.insert(space.params(i).dump());
    const Architecture a = space.architecture(i);
    CHECK(a.systolic().rows == space.params(i)["array.rows"].get<int64_t>());
    CHECK(a.systolic().cols == space.params(i)["array.cols"].get<int64_t>());
    CHECK(a.name().find("rows=") != std::string::npos);
  }
  CHECK(seen.size() == 18);
}

TEST_CASE("pareto front equals brute force, also with ties and three objectives") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const size_t dims = 2 + trial % 2, n = 1 + trial * 7;
    std::vector<ObjectiveVector> pts(n, ObjectiveVector(dims));
    for (auto& p : pts) {
      for (double& x : p) x = static_cast<double>(rng() % 12);  // small range: many ties
    }
    std::vector<size_t> expected;
    for (size_t i = 0; i < n; ++i) {
      bool dominated = false;
      for (size_t j = 0; j < n; ++j) dominated = dominated || dominates(pts[j], pts[i]);
      if (!dominated) expected.push_back(i);
    }
    std::vector<size_t> front = pareto_front(pts);
    std::sort(front.begin(), front.end());
    CHECK(front == expected);
    const auto fronts = non_dominated_fronts(pts);
    std::vector<size_t> first = fronts[0];
    std::sort(first.begin(), first.end());
    CHECK(first == expected);
    size_t total = 0;
    for (const auto& f : fronts) total += f.size();
    CHECK(total == n);
  }
  CHECK(dominates({1, 2}, {1, 3}));
  CHECK_FALSE(dominates({1, 3}, {1, 3}));
  CHECK_FALSE(dominates({0, 4}, {1, 3}));
  const std::vector<ObjectiveVector> line = {{0, 4}, {1, 3}, {2, 2}, {4, 0}};
  const std::vector<double> crowd = crowding_distances(line, {0, 1, 2, 3});
  CHECK(std::isinf(crowd[0]));
  CHECK(std::isinf(crowd[3]));
  CHECK(crowd[1] == doctest::Approx(2.0 / 4 + 2.0 / 4));
}

TEST_CASE("random sampling and NSGA-II are deterministic and draw distinct points") {
  for (int64_t space : {int64_t{10}, int64_t{1000}, int64_t{1} << 40}) {
    const auto a = random_sample(space, std::min<int64_t>(space, 10), 3);
    CHECK(a == random_sample(space, std::min<int64_t>(space, 10), 3));
    CHECK(std::set<int64_t>(a.begin(), a.end()).size() == a.size());
    for (int64_t x : a) CHECK((x >= 0 && x < space));
  }
  CHECK(random_sample(1000, 10, 3) != random_sample(1000, 10, 4));

  TempDir dir;
  const SweepSpec s = load_spec(dir, spec_text(R"({"array.rows": [8, 16, 32, 64], "array.cols": [8, 16, 32, 64], "dram.bandwidth_bytes_per_cycle": [4, 8, 16, 32]})"));
  const DesignSpace space(s);
  SweepStrategy st;
  st.kind = StrategyKind::nsga2;
  st.population = 8;
  st.generations = 5;
  st.seed = 11;
  // A synthetic fitness: two conflicting objectives of the digits, one constraint.
  std::map<int64_t, Fitness> fit;
  auto fitness = [&](int64_t i) -> const Fitness& {
    auto it = fit.find(i);
    if (it != fit.end()) return it->second;
    const auto d = space.digits(i);
    Fitness f;
    f.objectives = {static_cast<double>(d[0] + d[1]), static_cast<double>(6 - d[0] - d[1]) + d[2]};
    f.violation = d[2] == 3 ? 1.0 : 0.0;
    return fit.emplace(i, f).first->second;
  };
  auto run = [&] {
    Nsga2 n(space, st);
    std::vector<int64_t> pop = n.select(n.initial_population(), fitness), all = pop;
    for (int g = 0; g < st.generations; ++g) {
      const std::vector<int64_t> kids = n.offspring(pop);
      for (int64_t k : kids) CHECK(std::find(pop.begin(), pop.end(), k) == pop.end());
      all.insert(all.end(), kids.begin(), kids.end());
      std::vector<int64_t> both = kids;
      both.insert(both.end(), pop.begin(), pop.end());
      pop = n.select(both, fitness);
      CHECK(pop.size() == 8);
    }
    return std::make_pair(pop, all);
  };
  const auto [pop1, all1] = run();
  const auto [pop2, all2] = run();
  CHECK(pop1 == pop2);
  CHECK(all1 == all2);
  // Elitism with Deb's constraint rule: the final population holds only feasible points
  // (there are plenty), and contains a point of the true front (d0 + d1 minimal trade-off).
  for (int64_t p : pop1) CHECK(fitness(p).violation == 0);
}

TEST_CASE("constraint violations are stated with the metric, value and limit") {
  const Json m = {{"area_mm2", 120.0}, {"power_w", 0.5}};
  std::vector<SweepConstraint> c(2);
  c[0].metric = "area_mm2";
  c[0].max = 100;
  c[1].metric = "power_w";
  c[1].min = 1;
  const auto v = constraint_violations(c, m);
  REQUIRE(v.size() == 2);
  CHECK(v[0] == "area_mm2 = 120 > max 100");
  CHECK(v[1] == "power_w = 0.5 < min 1");
  c[0].max = 200;
  c[1].min = 0.1;
  CHECK(constraint_violations(c, m).empty());
}

TEST_CASE("points log: resume keeps good lines, drops a cut-off last line, refuses a corrupt middle") {
  TempDir dir;
  const SweepSpec s = load_spec(dir, spec_text(R"({"array.rows": [8, 16, 32]})"));
  const DesignSpace space(s);
  const Json p0 = evaluate_point(s, space, 0, Fidelity::analytic);
  const Json p1 = evaluate_point(s, space, 1, Fidelity::analytic);
  CHECK(is_point_record(p0));
  CHECK(p0["feasible"].get<bool>());
  CHECK(p0["metrics"]["latency_s"].get<double>() > 0);
  CHECK(p0["metrics"]["area_mm2"].get<double>() > 0);
  const std::string jsonl = dir / "points.jsonl", csv = dir / "points.csv";
  {
    PointLog log(jsonl, csv, s, false);
    log.append(p1);
    log.append(p0);
    log.rewrite_sorted();
  }
  CHECK(read_file(jsonl) == p0.dump() + "\n" + p1.dump() + "\n");
  CHECK(loom_test::contains(read_file(csv), "index,\"array.rows\",arch_name"));

  // A run killed mid-line: the partial line goes, with a warning; the rest stays.
  write_file(jsonl, p0.dump() + "\n" + p1.dump().substr(0, 40));
  {
    PointLog log(jsonl, csv, s, true);
    CHECK(log.size() == 1);
    CHECK(log.has(0));
    CHECK(loom_test::contains(log.warning(), "line 2 is incomplete"));
  }
  CHECK(read_file(jsonl) == p0.dump() + "\n");
  // A whole but invalid last line (no newline is not the only sign): dropped too.
  write_file(jsonl, p0.dump() + "\n{\"index\": 1}\n");
  {
    PointLog log(jsonl, csv, s, true);
    CHECK(log.size() == 1);
  }
  // Garbage in the middle is corruption, not an interruption.
  write_file(jsonl, p0.dump() + "\nnot json\n" + p1.dump() + "\n");
  CHECK_THROWS_AS(PointLog(jsonl, csv, s, true), InputError);
}

TEST_CASE("a point the architecture cannot run is recorded as an error, not thrown") {
  TempDir dir;
  // 1 KiB buffers cannot hold a fold's tile of LeNet on a 256-wide array.
  const SweepSpec s = load_spec(dir, spec_text(R"({"array.rows": [256], "sram.filter_kib": [1, 64], "sram.ifmap_kib": [1]})"));
  const DesignSpace space(s);
  const Json bad = evaluate_point(s, space, 0, Fidelity::analytic);
  CHECK(is_point_record(bad));
  CHECK(bad["error"].is_string());
  CHECK_FALSE(bad["feasible"].get<bool>());
}
