// Validation against real GPUs (validate/): measurement files are read strictly (every bad
// input named), the comparison simulates exactly the recorded launches and its statistics
// are right, microbenchmark probes derive their figures by differencing, the committed
// published-figure files load, and `loom validate` runs end to end and refuses bad input.
// CI has no GPU: the kernel-time path is exercised on files built here from loom's own
// launches, with "measured" times chosen by the test (never claimed as measurements).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/validate_report.h"
#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "sim/error.h"
#include "tests/cli_harness.h"
#include "validate/comparison.h"
#include "validate/device_match.h"
#include "validate/measurements.h"
#include "validate/microbenchmarks.h"
#include "validate/statistics.h"
#include "validate/sweep_plan.h"

using namespace loom;
using namespace loom::validate;
using namespace loom_test;
using nlohmann::json;

namespace {

const std::string kSrc = LOOM_SOURCE_DIR;

// A minimal measured file: one run per (kernel, sizes), with the launch loom's recipe makes.
json measured_file(const std::vector<std::pair<std::string, std::map<std::string, int64_t>>>& runs,
                   const std::vector<double>& times_us, const std::string& device = "Tesla V100-SXM2-16GB") {
  json kernels = json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    const simt::LaunchRecipe r = simt::make_launch_recipe(runs[i].first, runs[i].second);
    kernels.push_back({{"kernel", runs[i].first},
                       {"sizes", runs[i].second},
                       {"grid", {r.grid.x, r.grid.y, r.grid.z}},
                       {"block", {r.block.x, r.block.y, r.block.z}},
                       {"time", {{"median_us", times_us[i]}, {"repeats", 5}}},
                       {"verified", true}});
  }
  return {{"schema", "loom-gpu-measurements"},
          {"schema_version", 1},
          {"origin", "measured"},
          {"date", "2026-11-21"},
          {"device", {{"name", device}, {"sms", 80}, {"sm_clock_mhz", 1530}}},
          {"launch_overhead_us", 2.0},
          {"kernels", kernels}};
}

std::string error_of(const json& j) {
  try {
    parse_measurements(j, "m.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const simt::GpuConfig& v100() {
  static const simt::GpuConfig c = simt::load_gpu_config(kSrc + "/configs/v100.json");
  return c;
}

}  // namespace

TEST_CASE("statistics: MAPE and Pearson correlation") {
  CHECK(relative_error(100, 110) == doctest::Approx(0.10));
  CHECK(*mean_absolute_percentage_error({100, 200}, {110, 180}) == doctest::Approx(10.0));
  CHECK(*pearson_correlation({1, 2, 3}, {2, 4, 6}) == doctest::Approx(1.0));
  CHECK(*pearson_correlation({1, 2, 3}, {3, 2, 1}) == doctest::Approx(-1.0));
  CHECK_FALSE(pearson_correlation({1}, {1}).has_value());
  CHECK_FALSE(pearson_correlation({1, 1}, {2, 3}).has_value());  // no variance
  CHECK_FALSE(mean_absolute_percentage_error({}, {}).has_value());
}

TEST_CASE("device names: the GPU model, not its decoration, must match") {
  CHECK(gpu_model("Tesla V100-SXM2-16GB") == "v100");
  CHECK(gpu_model("NVIDIA H200") == "h200");
  CHECK(same_gpu_model("V100-SXM2-16GB", "Tesla V100-PCIE-32GB"));
  CHECK(same_gpu_model("H200-SXM-141GB", "NVIDIA H200"));
  CHECK_FALSE(same_gpu_model("V100-SXM2-16GB", "NVIDIA H200"));
  CHECK_FALSE(same_gpu_model("", ""));
}

TEST_CASE("measurement files: a good one reads back through to_json unchanged") {
  const json j = measured_file({{"relu_add", {{"n", 65536}}}}, {10.5});
  const MeasurementFile m = parse_measurements(j, "m.json");
  REQUIRE(m.kernels.size() == 1);
  CHECK(m.kernels[0].time.median_us == 10.5);
  CHECK(m.launch_overhead_us == 2.0);
  const MeasurementFile again = parse_measurements(to_json(m), "again.json");
  CHECK(to_json(again) == to_json(m));
}

TEST_CASE("measurement files: a convolution's run keeps only the sizes the kernel takes") {
  // The recipe derives P and Q; a run holding them could not be launched again.
  const std::map<std::string, int64_t> sizes{{"N", 1}, {"C", 8}, {"H", 8}, {"W", 8}, {"K", 8},
                                             {"R", 3}, {"S", 3}, {"stride", 1}, {"pad", 1}};
  const MeasurementFile m = parse_measurements(measured_file({{"conv_implicit_gemm", sizes}}, {10}), "m.json");
  REQUIRE(m.kernels.size() == 1);
  CHECK(m.kernels[0].sizes == sizes);
  CHECK_NOTHROW(simt::make_launch_recipe("conv_implicit_gemm", m.kernels[0].sizes));
  CHECK(simt::format_size_list("conv_implicit_gemm", sizes) == "N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1");
}

TEST_CASE("measurement files: bad input names the file, the field and the rule") {
  json j = measured_file({{"relu_add", {{"n", 65536}}}}, {10.5});
  SUBCASE("schema version") {
    j["schema_version"] = 2;
    const std::string e = error_of(j);
    CHECK(contains(e, "m.json"));
    CHECK(contains(e, "schema_version"));
    CHECK(contains(e, "version 1"));
  }
  SUBCASE("not a measurement file") {
    j["schema"] = "loom-arch/1";
    CHECK(contains(error_of(j), "not a loom measurement file"));
  }
  SUBCASE("a kernel loom does not ship") {
    j["kernels"][0]["kernel"] = "my_gemm";
    const std::string e = error_of(j);
    CHECK(contains(e, "kernels[0].kernel"));
    CHECK(contains(e, "my_gemm"));
    CHECK(contains(e, "wmma_gemm"));  // lists the known ones
  }
  SUBCASE("a size the kernel does not take") {
    j["kernels"][0]["sizes"]["M"] = 5;
    CHECK(contains(error_of(j), "kernels[0].sizes"));
  }
  SUBCASE("a launch other than loom's recipe") {
    j["kernels"][0]["block"] = {128, 1, 1};
    const std::string e = error_of(j);
    CHECK(contains(e, "kernels[0].grid"));
    CHECK(contains(e, "another loom version"));
  }
  SUBCASE("an unknown key") {
    j["kernels"][0]["time"]["mean_us"] = 3;
    CHECK(contains(error_of(j), "mean_us"));
  }
  SUBCASE("a non-positive time") {
    j["kernels"][0]["time"]["median_us"] = 0;
    CHECK(contains(error_of(j), "median_us"));
  }
  SUBCASE("a published file without sources") {
    j["origin"] = "published";
    CHECK(contains(error_of(j), "sources"));
  }
  SUBCASE("a microbenchmark loom does not know, or in the wrong unit") {
    j["microbenchmarks"] = json::array({{{"name", "l3_latency"}, {"value", 5}, {"unit", "cycles"}}});
    CHECK(contains(error_of(j), "l3_latency"));
    j["microbenchmarks"][0]["name"] = "dram_bandwidth";
    CHECK(contains(error_of(j), "\"GB/s\""));
  }
  SUBCASE("a figure citing an undeclared source") {
    j["sources"] = json::array({{{"id", "paper"}, {"citation", "A paper"}}});
    j["figures"] = json::array({{{"name", "peak_fp32_tflops"}, {"value", 15}, {"unit", "TFLOP/s"}, {"source", "other"}}});
    CHECK(contains(error_of(j), "figures[0].source"));
  }
}

TEST_CASE("the committed published-figure files load and say they are published") {
  for (const char* name : {"v100-published.json", "t4-published.json", "a100-published.json"}) {
    CAPTURE(name);
    const MeasurementFile m = load_measurements(kSrc + "/validate/data/" + name);
    CHECK(m.origin == Origin::published);
    CHECK(contains(m.note, "PUBLISHED FIGURES"));
    CHECK(m.microbenchmarks.size() >= 4);
    for (const Microbenchmark& mb : m.microbenchmarks) CHECK_FALSE(mb.source.empty());
  }
}

TEST_CASE("the committed H200 measurement loads, and the H200 config is calibrated to it") {
  // validate/data/h200-2026-11-27.json: loom-gpu-runner on a real H200 (docs/validation.md,
  // "Results"). configs/h200.json was calibrated to it: the same device, and its latency
  // probes come out within the 10% target. (The bandwidth and throughput probes, also
  // within 10%, take too long to simulate here: `loom validate` reports them.)
  const MeasurementFile m = load_measurements(kSrc + "/validate/data/h200-2026-11-27.json");
  CHECK(m.origin == Origin::measured);
  CHECK(m.device.name == "NVIDIA H200");
  CHECK(m.kernels.size() >= 50);
  CHECK(m.microbenchmarks.size() == 10);
  for (const KernelRun& r : m.kernels) CHECK(r.verified);
  const simt::GpuConfig h200 = simt::load_gpu_config(kSrc + "/configs/h200.json");
  CHECK(h200.sms == m.device.sms);
  CHECK(h200.l2_bytes == m.device.l2_bytes);
  CHECK(h200.clock_hz == doctest::Approx(m.device.sm_clock_mhz * 1e6));
  MeasurementFile latencies = m;
  latencies.kernels.clear();
  latencies.references.clear();
  std::erase_if(latencies.microbenchmarks, [](const Microbenchmark& mb) {
    return mb.name != "shared_latency" && mb.name != "l1_hit_latency" && mb.name != "l2_hit_latency" &&
           mb.name != "fp32_latency" && mb.name != "tensor_latency";
  });
  REQUIRE(latencies.microbenchmarks.size() == 5);
  const ValidationReport r = run_validation(h200, latencies, ValidationOptions{});
  REQUIRE(r.microbenchmarks.size() == 5);
  for (const MicrobenchmarkComparison& c : r.microbenchmarks) {
    CAPTURE(c.name);
    CHECK(std::fabs(c.error) <= 0.10);
  }
}

TEST_CASE("microbenchmark probes: two launches differing in one size; figures by differencing") {
  const ProbeTarget v100_target{80, 2048, 6 << 20};
  for (const MicrobenchmarkDef& def : microbenchmark_catalog()) {
    CAPTURE(def.name);
    const Probe p = make_probe(def.name, v100_target);
    CHECK(simt::is_catalog_kernel(p.kernel));
    CHECK(work_difference(def.name, p.small, p.large) > 0);
    CHECK_THROWS_AS(work_difference(def.name, p.large, p.small), InputError);  // the wrong way round
  }
  // L2 latency: a footprint larger than any L1 and at most a quarter of L2; DRAM beyond L2.
  CHECK(make_probe("l2_hit_latency", v100_target).small.at("footprint") == 1 << 20);
  CHECK(make_probe("dram_latency", v100_target).small.at("footprint") >= 4 * (6 << 20));
  // 100 extra steps taking 1 us more at 1500 MHz: 15 cycles a step.
  CHECK(derive_figure(Quantity::latency_cycles, 100, 10, 11, 1500) == doctest::Approx(15));
  CHECK(derive_figure(Quantity::bandwidth_gb_s, 1e9, 0, 1000, 0) == doctest::Approx(1000));  // 1 GB in 1 ms
  CHECK(derive_figure(Quantity::throughput_tflops, 1e12, 0, 1e6, 0) == doctest::Approx(1));
  CHECK(std::isnan(derive_figure(Quantity::latency_cycles, 100, 11, 10, 1500)));  // not slower: no figure
  CHECK_THROWS_AS(make_probe("l3_latency", v100_target), InputError);
}

TEST_CASE("the validation sweep covers the issue's ranges") {
  const std::vector<PlannedRun> full = validation_sweep({80, 2048, 6 << 20}, false);
  const std::vector<PlannedRun> quick = validation_sweep({80, 2048, 6 << 20}, true);
  CHECK(quick.size() < full.size());
  int64_t max_gemm = 0, max_elements = 0, max_footprint = 0;
  for (const PlannedRun& r : full) {
    CHECK_NOTHROW(simt::make_launch_recipe(r.kernel, r.sizes));
    if (r.kernel == "wmma_gemm") max_gemm = std::max(max_gemm, r.sizes.at("M"));
    if (r.kernel == "relu_add") max_elements = std::max(max_elements, r.sizes.at("n"));
    if (r.kernel == "pointer_chase") max_footprint = std::max(max_footprint, r.sizes.at("footprint"));
  }
  CHECK(max_gemm == 8192);
  CHECK(max_elements == int64_t{1} << 28);
  CHECK(max_footprint <= 4 * (6 << 20));
  CHECK(max_footprint * 4 > 4 * (6 << 20));
}

TEST_CASE("comparison: every recorded launch is simulated and scored") {
  // "Measured" times chosen by the test: 10% above and 20% below what loom simulates.
  const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> runs{
      {"relu_add", {{"n", 1 << 16}}}, {"relu_add", {{"n", 1 << 18}}}, {"wmma_gemm", {{"M", 128}, {"N", 128}, {"K", 128}}}};
  MeasurementFile probe = parse_measurements(measured_file(runs, {1, 1, 1}), "probe.json");
  ValidationOptions options;
  const ValidationReport first = run_validation(v100(), probe, options);
  REQUIRE(first.runs.size() == 3);
  std::vector<double> times;
  const double factors[] = {1.1, 0.8, 1.1};
  for (const RunComparison& c : first.runs) {
    REQUIRE(c.simulated);
    CHECK(c.cycles > 0);
    CHECK(c.simulated_us == doctest::Approx(c.cycles / v100().clock_hz * 1e6 + 2.0));  // plus the launch overhead
  }
  // Runs come back grouped by kernel, smallest first; rebuild the file in that order.
  std::vector<std::pair<std::string, std::map<std::string, int64_t>>> ordered;
  for (size_t i = 0; i < 3; ++i) {
    ordered.push_back({first.runs[i].measured.kernel, first.runs[i].measured.sizes});
    times.push_back(first.runs[i].simulated_us * factors[i]);
  }
  const ValidationReport r = run_validation(v100(), parse_measurements(measured_file(ordered, times), "m.json"), options);
  for (size_t i = 0; i < 3; ++i) CHECK(r.runs[i].error == doctest::Approx(1 / factors[i] - 1));
  const Agreement& all = r.agreement.back();
  CHECK(all.group == "all");
  CHECK(all.points == 3);
  CHECK(*all.mape == doctest::Approx(100 * (2 * (1 - 1 / 1.1) + (1 / 0.8 - 1)) / 3));
  CHECK(all.pearson.has_value());
  bool gemm_target = false;
  for (const Target& t : r.targets)
    if (contains(t.name, "GEMM kernels: mean absolute error")) {
      gemm_target = true;
      CHECK(t.met);  // one GEMM point, 9.1% off
    }
  CHECK(gemm_target);

  // The report's scatter draws one point per simulated run.
  const std::string html = validation_html(r);
  size_t points = 0;
  for (size_t at = html.find("class=\"point\""); at != std::string::npos; at = html.find("class=\"point\"", at + 1))
    ++points;
  CHECK(points == 3);
  CHECK(validation_to_json(r)["runs"].size() == 3);
}

TEST_CASE("comparison: launches over the budget are skipped, not silently dropped") {
  const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> runs{{"relu_add", {{"n", 1 << 16}}},
                                                                                 {"relu_add", {{"n", 1 << 22}}}};
  ValidationOptions options;
  options.budget_s = 1e-6;
  const ValidationReport r = run_validation(v100(), parse_measurements(measured_file(runs, {5, 50}), "m.json"), options);
  REQUIRE(r.runs.size() == 2);
  CHECK(r.runs[0].simulated);
  CHECK_FALSE(r.runs[1].simulated);
  CHECK(contains(r.runs[1].skipped, "--budget"));
  CHECK(r.agreement.back().points == 1);
}

TEST_CASE("comparison: launches beyond loom's limits are skipped with the limit, not fatal") {
  // The runner's sweeps reach 2^28 elements (3.2 GB of buffers) where a GPU has the memory;
  // loom simulates up to 2 GiB of buffers. Such a run is skipped, whatever the budget, and
  // the others are still compared.
  const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> runs{{"relu_add", {{"n", 1 << 16}}},
                                                                                 {"relu_add", {{"n", 1 << 28}}}};
  ValidationOptions options;
  options.budget_s = 0;  // no budget: only the limit can skip it
  const ValidationReport r = run_validation(v100(), parse_measurements(measured_file(runs, {5, 5000}), "m.json"), options);
  REQUIRE(r.runs.size() == 2);
  CHECK(r.runs[0].simulated);
  CHECK_FALSE(r.runs[1].simulated);
  CHECK(contains(r.runs[1].skipped, "beyond loom's limits"));
  CHECK(contains(r.runs[1].skipped, "2 GiB of buffers"));
  CHECK(r.agreement.back().points == 1);
}

TEST_CASE("comparison: the budget counts simulated warp instructions, not wall seconds") {
  // relu_add's launch at 2^16 elements extrapolates, at 2^22, to over 3 M warp instructions:
  // over 0.75 s at the nominal 4 M/s, whatever this machine's speed.
  const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> runs{{"relu_add", {{"n", 1 << 16}}},
                                                                                 {"relu_add", {{"n", 1 << 22}}}};
  const MeasurementFile m = parse_measurements(measured_file(runs, {5, 50}), "m.json");
  ValidationOptions options;
  options.budget_s = 0.75;
  const ValidationReport tight = run_validation(v100(), m, options);
  CHECK_FALSE(tight.runs[1].simulated);
  CHECK(contains(tight.runs[1].skipped, "at a nominal 4 M/s, over the budget of 0.75 s"));
  options.budget_s = 1.5;
  CHECK(run_validation(v100(), m, options).runs[1].simulated);
}

TEST_CASE("comparison: a config of another GPU is refused unless asked for") {
  const MeasurementFile m = parse_measurements(measured_file({{"relu_add", {{"n", 1 << 16}}}}, {5}, "NVIDIA H200"), "h.json");
  ValidationOptions options;
  try {
    run_validation(v100(), m, options);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(contains(e.what(), "NVIDIA H200"));
    CHECK(contains(e.what(), "--allow-device-mismatch"));
  }
  options.allow_device_mismatch = true;
  const ValidationReport r = run_validation(v100(), m, options);
  REQUIRE_FALSE(r.warnings.empty());
  CHECK(contains(r.warnings[0], "compared anyway"));
}

TEST_CASE("loom validate: end to end on the published V100 figures, and bad input") {
  TempDir dir;
  const RunResult ok = run_loom(dir, {"validate", "--arch", kSrc + "/configs/v100.json", "--measured",
                                      kSrc + "/validate/data/v100-published.json", "--out", dir / "out", "-q"});
  CHECK_MESSAGE(ok.code == 0, ok.err);
  CHECK(contains(ok.out, "l2_hit_latency"));
  CHECK(contains(ok.out, "peak_tensor_fp16_tflops"));
  CHECK(contains(ok.out, "targets"));
  const json report = json::parse(read_file(dir / "out/validation.json"));
  CHECK(report["measurements"]["origin"] == "published");
  CHECK(report["microbenchmarks"].size() == load_measurements(kSrc + "/validate/data/v100-published.json").microbenchmarks.size());
  for (const json& mb : report["microbenchmarks"]) CHECK_FALSE(mb["simulated"].is_null());
  CHECK(contains(read_file(dir / "out/report.html"), "<svg"));

  write_file(dir / "bad.json", "{\"schema\": \"loom-gpu-measurements\", \"schema_version\": 7}");
  const RunResult bad = run_loom(dir, {"validate", "--arch", kSrc + "/configs/v100.json", "--measured", dir / "bad.json",
                                       "--out", dir / "bad_out"});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "schema_version"));
  CHECK_FALSE(fs::exists(dir / "bad_out/validation.json"));

  const RunResult mismatch = run_loom(dir, {"validate", "--arch", kSrc + "/configs/h200.json", "--measured",
                                            kSrc + "/validate/data/v100-published.json", "--out", dir / "mm"});
  CHECK(mismatch.code == 2);
  CHECK(contains(mismatch.err, "--allow-device-mismatch"));
}
