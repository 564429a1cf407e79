// Absurd but valid inputs: each one either runs (these do, in well under a second) or is
// refused up front with exit 2, one error line stating loom's limit, and no output written.
// The cases: 1x1 and 4096x4096 systolic arrays in each dataflow, hierarchies with a 1x1 and
// a 4096x4096 fan-out, layers of 10^12 MACs and networks of more than 10^18, the SIMT model
// with 10^12-MAC layers and huge grids, sweeps at and past 10^7 points. Which limit catches
// which case, and what the cases that run cost in time and memory: docs/reliability.md.
// Library-level checks pin the limits exactly at their values (exactly 10^7 folds runs,
// one more does not) and the SIMT instruction estimates against the model.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arch/architecture.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/launch_limits.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/simt_limits.h"
#include "arch/systolic/layer_plan.h"
#include "arch/systolic/systolic_simulator.h"
#include "sim/error.h"
#include "sweep/design_space.h"
#include "sweep/pareto.h"
#include "sweep/point_log.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_spec.h"
#include "tests/cli_harness.h"
#include "workloads/network.h"

namespace fs = std::filesystem;
using namespace loom_test;
using nlohmann::json;

namespace {

const std::string kSrc = LOOM_SOURCE_DIR;

json load(const std::string& relative) { return json::parse(read_file(kSrc + "/" + relative)); }

// The 32x32 WS config at `n` x `n` in `dataflow`; `big_sram`: 1 TiB buffers, so a 4096-wide
// fold's tiles fit.
std::string systolic_arch(const TempDir& dir, int n, const std::string& dataflow, bool big_sram = false) {
  json a = load("configs/systolic_32x32_ws.json");
  a["name"] = "sys" + std::to_string(n) + "_" + dataflow;
  a["array"] = {{"rows", n}, {"cols", n}, {"dataflow", dataflow}};
  if (big_sram) a["sram"] = {{"ifmap_kib", 1 << 20}, {"filter_kib", 1 << 20}, {"ofmap_kib", 1 << 20}};
  const std::string path = dir / (a["name"].get<std::string>() + (big_sram ? "_big" : "") + ".json");
  write_file(path, a.dump());
  return path;
}

// eyeriss_like_rs with an n x n global-buffer fan-out; `slow_rf`: 64-bit words and a
// 1/1024 B/cycle register file, so a 10^15-MAC layer needs more than 10^18 cycles.
std::string hierarchy_arch(const TempDir& dir, int n, bool slow_rf = false) {
  json h = load("configs/eyeriss_like_rs.json");
  h["name"] = "hier" + std::to_string(n) + (slow_rf ? "_slow" : "");
  h["energy_table"] = kSrc + "/configs/energy/eyeriss_relative.json";
  h["levels"][1]["fanout"]["x"] = n;
  h["levels"][1]["fanout"]["y"] = n;
  if (n == 1) h["dataflow"] = "none";  // rs needs a fan-out
  if (slow_rf) {
    h["word_bits"] = {{"weights", 64}, {"inputs", 64}, {"outputs", 64}};
    h["levels"][2]["bandwidth_bytes_per_cycle"] = 1.0 / 1024;
    h["levels"][2]["capacity_bytes"] = {{"weights", 4480}, {"inputs", 240}, {"outputs", 480}};
  }
  const std::string path = dir / (h["name"].get<std::string>() + ".json");
  write_file(path, h.dump());
  return path;
}

std::string network(const TempDir& dir, const std::string& name, const std::vector<json>& layers) {
  const std::string path = dir / (name + ".json");
  json doc = json::object();
  doc["schema"] = "loom-network/1";
  doc["name"] = name;
  doc["layers"] = layers;
  write_file(path, doc.dump());
  return path;
}

json gemm(const std::string& name, int64_t m, int64_t n, int64_t k) {
  json g = json::object();
  g["name"] = name, g["type"] = "gemm", g["m"] = m, g["n"] = n, g["k"] = k;
  return g;
}

// 10^12 MACs as a GEMM (10^4 cubed) and as a 3x3 convolution (100x100 outputs, 3334 -> 3333).
std::string gemm_1e12(const TempDir& dir) { return network(dir, "gemm1e12", {gemm("g", 10000, 10000, 10000)}); }
std::string conv_1e12(const TempDir& dir) {
  json c = json::object();
  c["name"] = "c", c["type"] = "conv2d", c["input_hw"] = 102, c["in_channels"] = 3334, c["out_channels"] = 3333;
  c["kernel"] = 3;
  return network(dir, "conv1e12", {c});
}

size_t count_lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// Runs loom with `--out OUT` appended; expects the refusal contract: exit 2, one line
// "loom: error: ..." containing every needle, and nothing written to OUT.
void expect_refused(const TempDir& dir, std::vector<std::string> args, const std::vector<std::string>& needles) {
  static int n = 0;
  const fs::path out = dir.path() / ("refused_" + std::to_string(n++));
  args.insert(args.end(), {"--out", out.string()});
  const RunResult r = run_loom(dir, args);
  INFO("stderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("loom: error: ", 0) == 0);
  for (const std::string& needle : needles) CHECK(contains(r.err, needle));
  CHECK((!fs::exists(out) || fs::is_empty(out)));
}

void expect_runs(const TempDir& dir, std::vector<std::string> args) {
  static int n = 0;
  args.insert(args.end(), {"--out", (dir.path() / ("ran_" + std::to_string(n++))).string(), "-q"});
  const RunResult r = run_loom(dir, args);
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
}

}  // namespace

TEST_CASE("limits: 1x1 and 4096x4096 systolic arrays, 10^12-MAC layers") {
  TempDir dir;
  const std::string small = network(dir, "small", {gemm("g", 64, 64, 64)});
  const std::string big_gemm = gemm_1e12(dir), big_conv = conv_1e12(dir);
  for (const std::string dataflow : {"ws", "is", "os"}) {
    CAPTURE(dataflow);
    const std::string one = systolic_arch(dir, 1, dataflow), huge = systolic_arch(dir, 4096, dataflow, true);
    // A small layer on one PE, cycle level and analytic.
    expect_runs(dir, {"run", "--arch", one, "--workload", small});
    // 10^12 MACs on one PE: 10^8 folds or more, refused before anything is planned.
    expect_refused(dir, {"run", "--arch", one, "--workload", big_gemm}, {"gemm1e12.json", "layers", "10^7 folds"});
    expect_refused(dir, {"run", "--arch", one, "--workload", big_conv}, {"conv1e12.json", "10^7 folds"});
    // On 4096x4096 PEs both are a handful of folds, at cycle level as analytically.
    expect_runs(dir, {"run", "--arch", huge, "--workload", big_gemm});
    expect_runs(dir, {"run", "--arch", huge, "--workload", big_conv});
  }
  // With the shipped 64 KiB buffers a 4096-wide stationary tile does not fit: refused, naming the buffer.
  expect_refused(dir, {"run", "--arch", systolic_arch(dir, 4096, "ws"), "--workload", big_gemm},
                 {"sram.filter_kib", "working half"});
}

TEST_CASE("limits: the fold limit is exactly 10^7 per run, checked in closed form") {
  loom::SystolicConfig c;
  c.name = "one_pe";
  c.rows = c.cols = 1;
  c.dataflow = loom::Dataflow::os;
  const loom::ArrayGeometry g = loom::geometry_of(c, false);
  loom::Network n;
  n.source_file = "n.json";
  loom::Layer l;
  l.name = "g";
  l.gemm = {1000, 10000, 1, 1};  // os on one PE: one fold per output, 10^7
  n.layers = {l};
  CHECK_NOTHROW(loom::check_folds_bound(n, c, g));
  l.name = "h";
  l.gemm = {1, 1, 1, 1};
  n.layers.push_back(l);
  try {
    loom::check_folds_bound(n, c, g);
    FAIL("10^7 + 1 folds accepted");
  } catch (const loom::InputError& e) {
    CHECK(e.file() == "n.json");
    CHECK(contains(e.expected(), "10000001 folds"));
    CHECK(contains(e.expected(), "up to 10^7 folds per run"));
  }
}

TEST_CASE("limits: hierarchies with 1x1 and 4096x4096 fan-outs; cycles beyond 64 bits") {
  TempDir dir;
  const std::string big_gemm = gemm_1e12(dir);
  expect_runs(dir, {"map", "--arch", hierarchy_arch(dir, 1), "--workload", big_gemm, "--layer", "g"});
  expect_runs(dir, {"run", "--arch", hierarchy_arch(dir, 4096), "--workload", big_gemm});
  // 10^15 MACs through a 1/1024 B/cycle register file: about 2.5 x 10^19 cycles, past int64.
  const std::string slow = hierarchy_arch(dir, 1, true);
  const std::string huge = network(dir, "gemm1e15", {gemm("g", 100000, 100000, 100000)});
  expect_refused(dir, {"map", "--arch", slow, "--workload", huge, "--layer", "g"},
                 {"hier1_slow.json", "layer g", "RF's bandwidth", "10^15 cycles"});
  expect_refused(dir, {"run", "--arch", slow, "--workload", huge}, {"10^15 cycles"});
}

TEST_CASE("limits: a network of more than 10^18 MACs is refused when it is loaded") {
  TempDir dir;
  std::vector<json> layers;
  for (int i = 0; i < 1001; ++i) layers.push_back(gemm("g" + std::to_string(i), 100000, 100000, 100000));
  const std::string net = network(dir, "many", layers);
  expect_refused(dir, {"run", "--arch", hierarchy_arch(dir, 1), "--workload", net}, {"many.json", "layers", "10^18 MACs"});
  expect_refused(dir, {"run", "--workload", net}, {"10^18 MACs"});
  layers.pop_back();  // exactly 10^18
  CHECK_NOTHROW(loom::load_workload(network(dir, "thousand", layers)));
}

TEST_CASE("limits: the SIMT model refuses 10^12-MAC layers and huge launches up front") {
  TempDir dir;
  const std::string v100 = kSrc + "/configs/v100.json";
  // A network run: every distinct launch estimated before the first is simulated.
  expect_refused(dir, {"run", "--arch", v100, "--workload", gemm_1e12(dir)},
                 {"gemm1e12.json", "layers", "warp instructions", "up to 2.5e9"});
  expect_refused(dir, {"run", "--arch", v100, "--workload", conv_1e12(dir), "--precision", "fp32"}, {"2.5e9"});
  // loom gpu: too much work, too much memory, a grid no simulation could finish.
  expect_refused(dir, {"gpu", "--arch", v100, "--kernel", "wmma_gemm", "--size", "M=10000,N=10000,K=10000"},
                 {"--size", "2.89e+09 warp instructions", "2.5e9"});
  expect_refused(dir, {"gpu", "--arch", v100, "--kernel", "pointer_chase", "--size", "steps=2147483647"}, {"2.5e9"});
  expect_refused(dir, {"gpu", "--arch", v100, "--kernel", "relu_add", "--size", "n=2147483647"},
                 {"bytes of buffers", "2 GiB"});
  expect_refused(dir, {"gpu", "--arch", v100, "--kernel", "conv_implicit_gemm", "--size", "N=2147483647,C=2147483647"},
                 {"bytes of buffers"});
  const std::string ptx = kSrc + "/validate/kernels/relu_add.ptx";
  expect_refused(dir,
                 {"gpu", "--arch", v100, "--kernel", ptx, "--grid", "2147483647,65535,65535", "--block", "1024", "--args",
                  "f32[1024],f32[1024],f32[1024],1024"},
                 {"--grid", "at least", "warp instructions"});
  expect_refused(dir,
                 {"gpu", "--arch", v100, "--kernel", ptx, "--grid", "4", "--block", "256", "--args",
                  "f32[17179869184],f32[1024],f32[1024],1024"},
                 {"--args", "bytes of buffers"});
}

TEST_CASE("limits: SIMT instruction estimates bound what the model executes") {
  const loom::Architecture arch = loom::load_architecture(kSrc + "/configs/v100.json");
  const loom::simt::GpuConfig& config = arch.gpu();
  const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> launches = {
      {"relu_add", {{"n", 1000}}},
      {"triad", {{"n", 65536}}},
      {"triad", {{"n", 262100}, {"blocks", 4}}},
      {"pointer_chase", {{"steps", 1000}}},
      {"reduction", {{"n", 131000}}},
      {"shared_chase", {{"steps", 2000}, {"count", 4096}}},
      {"address_chase", {{"steps", 2000}, {"footprint", 1 << 21}}},
      {"fma_chain", {{"steps", 1000}, {"blocks", 3}, {"threads", 48}}},
      {"mma_chain", {{"steps", 200}, {"blocks", 2}, {"threads", 64}}},
      {"stream_read", {{"n", 65536}, {"passes", 1}}},
      {"stream_read", {{"n", 131072}, {"passes", 2}, {"blocks", 4}}},
      {"naive_gemm", {{"M", 64}, {"N", 48}, {"K", 128}}},
      {"tiled_gemm", {{"M", 64}, {"N", 64}, {"K", 64}}},
      {"wmma_gemm", {{"M", 64}, {"N", 128}, {"K", 64}}},
      {"conv_implicit_gemm", {{"C", 8}, {"H", 10}, {"W", 10}, {"K", 16}}},
  };
  for (const auto& launch : launches) {
    const auto& kernel = launch.first;  // not a binding: clang 14 cannot capture one
    const auto& sizes = launch.second;
    CAPTURE(kernel);
    CAPTURE(loom::simt::format_size_list(kernel, sizes));
    const loom::simt::LaunchRecipe recipe = loom::simt::make_launch_recipe(kernel, sizes);
    loom::simt::RecipeRunOptions options;
    options.verify = false;
    const int64_t executed =
        loom::simt::run_recipe(recipe, loom::simt::shipped_kernel(kernel), config, options).stats.warp_instructions;
    const int64_t estimate = loom::simt::warp_instruction_estimate(recipe, config);
    CHECK(estimate >= executed);                // an upper bound ...
    CHECK(estimate <= executed * 5 / 4 + 64);   // ... and a close one
  }
}

TEST_CASE("limits: sweeps plan 10^7 points and refuse one more") {
  TempDir dir;
  const auto spec = [&](const std::string& name, const std::string& extra_parameter) {
    const std::string path = dir / (name + ".json");
    write_file(path, R"({"schema": "loom-sweep/1", "name": ")" + name + R"(", "base": ")" + kSrc +
                         R"(/configs/systolic_32x32_ws.json", "parameters": {"array.rows": {"from": 1, "to": 100, "step": 1},
                         "array.cols": {"from": 1, "to": 100, "step": 1},
                         "dram.bandwidth_bytes_per_cycle": {"from": 1, "to": 1000, "step": 1})" +
                         extra_parameter + R"(}, "workloads": [")" + kSrc + R"(/workloads/networks/lenet5.json"],
                         "objectives": ["latency", "energy"], "strategy": {"kind": "grid"}})");
    return path;
  };
  const loom::SweepSpec s = loom::load_sweep_spec(spec("grid1e7", ""));
  CHECK(loom::DesignSpace(s).size() == loom::kMaxSweepPoints);
  expect_refused(dir, {"sweep", spec("grid2e7", R"(, "sram.ifmap_kib": [64, 128])"), "-q"},
                 {"grid2e7.json", "strategy.kind", "at most 10^7 points"});
}

TEST_CASE("limits: the sweep log keeps records in its file, not in memory") {
  TempDir dir;
  const std::string spec_path = dir / "spec.json";
  write_file(spec_path, R"({"schema": "loom-sweep/1", "name": "t", "base": ")" + kSrc +
                            R"(/configs/systolic_32x32_ws.json", "parameters": {"array.rows": [8, 16, 32]},
                            "workloads": [")" + kSrc + R"(/workloads/networks/lenet5.json"],
                            "objectives": ["latency", "energy"], "strategy": {"kind": "grid"}})");
  const loom::SweepSpec s = loom::load_sweep_spec(spec_path);
  const auto record = [](int64_t index, double latency, double energy) {
    return json{{"index", index},   {"params", json::object()},
                {"arch_name", "a"}, {"fidelity", "analytic"},
                {"feasible", true}, {"violations", json::array()},
                {"error", nullptr}, {"workloads", json::object()},
                {"metrics", {{"latency_s", latency}, {"energy_j", energy}, {"edp_js", latency * energy},
                             {"inferences_per_s", 1 / latency}, {"throughput_per_area", 1 / latency},
                             {"area_mm2", 1.0}, {"power_w", energy / latency}}}};
  };
  // Random points appended out of order, some equal, some repeated: the streamed front must
  // be the batch front of the last record of each point, in pareto_front's order.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> coarse(1, 40);
  std::map<int64_t, json> last;
  const std::string jsonl = dir / "points.jsonl";
  {
    loom::PointLog log(jsonl, dir / "points.csv", s, false);
    for (int i = 0; i < 3000; ++i) {
      const int64_t index = static_cast<int64_t>(rng() % 2000);
      const json r = record(index, coarse(rng), coarse(rng));
      log.append(r);
      last[index] = r;
    }
    CHECK(log.size() == last.size());
    CHECK(*log.record(last.begin()->first) == last.begin()->second);
    log.rewrite_sorted();
    CHECK(*log.record(last.rbegin()->first) == last.rbegin()->second);  // read back from the rewritten file
  }
  std::string expected;
  std::vector<loom::ObjectiveVector> vectors;
  std::vector<int64_t> indices;
  for (const auto& [index, r] : last) {
    expected += r.dump() + "\n";
    vectors.push_back(loom::objective_vector(r["metrics"], s.objectives));
    indices.push_back(index);
  }
  CHECK(read_file(jsonl) == expected);
  std::vector<int64_t> batch;
  for (size_t p : loom::pareto_front(vectors)) batch.push_back(indices[p]);
  loom::PointLog reopened(jsonl, dir / "points.csv", s, true);
  CHECK(loom::front_of(reopened.source(), s.objectives) == batch);
  CHECK(loom::tally(reopened.source()).feasible == static_cast<int64_t>(last.size()));
}
