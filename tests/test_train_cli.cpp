// End-to-end tests of `loom train` (apps/train_command.h): the reports of a one-device and a
// data-parallel run, the bad-input contract (exit 2, one stderr line naming the option or
// field, no report left behind), determinism; and the report's pure chart helpers
// (apps/train_charts.h).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/train_charts.h"
#include "tests/cli_harness.h"

namespace fs = std::filesystem;
using namespace loom_test;

namespace {

const std::string kSrc = LOOM_SOURCE_DIR;
const std::string kV100 = kSrc + "/configs/v100.json";
const std::string kResNet50 = kSrc + "/workloads/networks/resnet50.json";
const std::string kDgx1 = kSrc + "/configs/systems/dgx1_v100.json";

size_t count_lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + needle.size())) ++n;
  return n;
}

// A system of two V100s joined by NVLink; `device_extra` goes into the device entry,
// `second_end` is the link's second endpoint.
std::string two_gpu_system(const std::string& device_extra = "", const std::string& second_end = "gpu1") {
  return R"({
  "schema": "loom-system/1",
  "name": "two_v100",
  "devices": [{"name": "gpu", "count": 2, "arch": ")" +
         kV100 + "\"" + device_extra + R"(}],
  "links": [{"between": ["gpu0", ")" +
         second_end + R"("], "type": "nvlink2", "count": 2}]
}
)";
}

// `loom train` on bad input: exit 2, one stderr line "loom: error: ..." holding every needle,
// and nothing in the fresh --out directory.
RunResult expect_bad_train(const TempDir& dir, std::vector<std::string> args, const std::vector<std::string>& needles) {
  static int n = 0;
  const fs::path out = dir.path() / ("out_bad_" + std::to_string(n++));
  args.insert(args.begin(), "train");
  args.insert(args.end(), {"--out", out.string(), "-q"});
  const RunResult r = run_loom(dir, args);
  INFO("stderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("loom: error: ", 0) == 0);
  CHECK(!contains(r.err, "internal error"));
  for (const std::string& needle : needles) CHECK_MESSAGE(contains(r.err, needle), "missing '" << needle << "'");
  CHECK(r.out.empty());
  CHECK(!fs::exists(out / "report.json"));
  CHECK((!fs::exists(out) || fs::is_empty(out)));
  return r;
}

}  // namespace

TEST_CASE("loom train: one V100, ResNet-50: terminal summary and the four reports") {
  TempDir dir;
  const std::string out = dir / "out";
  const RunResult r = run_loom(dir, {"train", "--arch", "configs/v100.json", "--workload", "workloads/networks/resnet50.json",
                                     "--batch", "64", "--out", out});
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  CHECK(contains(r.out, "samples/s"));
  CHECK(contains(r.out, "step time"));
  CHECK(contains(r.out, "exposed launch overhead"));
  CHECK(contains(r.out, "FITS"));
  CHECK(contains(r.out, "reports: " + out + "/report.json"));

  const nlohmann::json report = nlohmann::json::parse(read_file(fs::path(out) / "report.json"));
  CHECK(report["kind"] == "train");
  CHECK(report["command"] == "train");
  CHECK(report["schema_version"].is_number_integer());
  CHECK(report["samples_per_second"].get<double>() > 0);
  CHECK(report["step_seconds"].get<double>() > 0);
  CHECK(report["devices"] == 1);
  CHECK(report["system"]["devices"].size() == 1);
  CHECK(report["system"]["devices"][0]["arch_kind"] == "gpu");
  CHECK(report["workload"]["name"].is_string());
  CHECK(contains(report["workload"]["file"].get<std::string>(), "resnet50.json"));

  const std::string kernels = read_file(fs::path(out) / "kernels.csv");
  CHECK(kernels.rfind("name,layer,op,phase,kind,seconds,flops,dram_bytes,launches,fusion_saved_bytes\n", 0) == 0);
  CHECK(count_lines(kernels) == report["kernels"].size() + 1);
  CHECK(contains(kernels, ",gemm,"));
  CHECK(contains(kernels, ",elementwise,"));
  const std::string timeline = read_file(fs::path(out) / "timeline.csv");
  CHECK(timeline.rfind("device,lane,name,phase,start_s,end_s\n", 0) == 0);
  CHECK(count_lines(timeline) == report["timeline"].size() + 1);

  const std::string html = read_file(fs::path(out) / "report.html");
  CHECK(contains(html, "<svg"));
  CHECK(!contains(html, "<script"));
  CHECK(contains(html, "class=\"timeline-bar\""));
  CHECK(contains(html, "class=\"breakdown-bar\""));
  CHECK(contains(html, "class=\"memory-segment\""));
  CHECK(contains(html, "class=\"capacity-mark\""));  // the V100's 16 GiB (32 GiB) is known
  CHECK(count_of(html, "class=\"timeline-bar\"") <= 2000);
  CHECK(contains(html, "What each switch costs"));
}

TEST_CASE("loom train: data parallel on a DGX-1") {
  TempDir dir;
  REQUIRE_MESSAGE(fs::exists(kDgx1), "configs/systems/dgx1_v100.json is missing");

  SUBCASE("batch 256 over 8 devices") {
    const std::string out = dir / "out";
    const RunResult r = run_loom(dir, {"train", "--system", kDgx1, "--batch", "256", "--out", out});
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    CHECK(contains(r.out, "8 devices"));
    CHECK(contains(r.out, "scaling efficiency"));
    const nlohmann::json report = nlohmann::json::parse(read_file(fs::path(out) / "report.json"));
    CHECK(report["devices"] == 8);
    CHECK(report["per_device_batch"] == 32);
    CHECK(report["system"]["devices"].size() == 8);
    CHECK(report["system"]["links"].size() > 0);
    CHECK(report["samples_per_second"].get<double>() > 0);
    CHECK(report["scaling_efficiency"].get<double>() > 0);
    CHECK(report["scaling_efficiency"].get<double>() <= 1.0 + 1e-9);
    const std::string html = read_file(fs::path(out) / "report.html");
    CHECK(count_of(html, "class=\"timeline-bar\"") > 0);
    CHECK(count_of(html, "class=\"timeline-bar\"") <= 2000);
    CHECK(fs::file_size(fs::path(out) / "report.html") < 4u * 1024 * 1024);
  }
  SUBCASE("--quiet prints one line") {
    const RunResult r = run_loom(dir, {"train", "--system", kDgx1, "--batch", "256", "--out", dir / "q", "--quiet"});
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    CHECK(count_lines(r.out) == 1);
    CHECK(r.out.rfind("train: ", 0) == 0);
    CHECK(contains(r.out, "samples/s, step "));
    CHECK(contains(r.out, "8 devices (data), efficiency "));
  }
  SUBCASE("a batch that does not divide over the devices") {
    expect_bad_train(dir, {"--system", kDgx1, "--batch", "250"}, {"--batch", "250", "8"});
  }
  SUBCASE("--devices 2 uses the first two") {
    const std::string out = dir / "two";
    const RunResult r = run_loom(dir, {"train", "--system", kDgx1, "--devices", "2", "--batch", "64", "--out", out, "-q"});
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json report = nlohmann::json::parse(read_file(fs::path(out) / "report.json"));
    CHECK(report["devices"] == 2);
  }
}

TEST_CASE("loom train: bad input exits 2 with one line and leaves no report") {
  TempDir dir;
  SUBCASE("neither --system nor --arch") { expect_bad_train(dir, {"--batch", "64"}, {"--system", "--arch"}); }
  SUBCASE("both --system and --arch") {
    const std::string system = dir / "two.json";
    write_file(system, two_gpu_system());
    expect_bad_train(dir, {"--system", system, "--arch", kV100, "--batch", "64"}, {"--system", "--arch", "not both"});
  }
  SUBCASE("no --batch") { expect_bad_train(dir, {"--arch", kV100}, {"--batch"}); }
  SUBCASE("a zero batch") { expect_bad_train(dir, {"--arch", kV100, "--batch", "0"}, {"--batch"}); }
  SUBCASE("--precision bogus") {
    expect_bad_train(dir, {"--arch", kV100, "--batch", "64", "--precision", "bogus"}, {"--precision", "bogus", "fp32"});
  }
  SUBCASE("--parallel bogus") {
    expect_bad_train(dir, {"--arch", kV100, "--batch", "64", "--parallel", "model"}, {"--parallel", "pipeline"});
  }
  SUBCASE("--optimizer bogus") {
    expect_bad_train(dir, {"--arch", kV100, "--batch", "64", "--optimizer", "lamb"}, {"--optimizer", "adam"});
  }
  SUBCASE("--bucket-mib 0") { expect_bad_train(dir, {"--arch", kV100, "--batch", "64", "--bucket-mib", "0"}, {"--bucket-mib"}); }
  SUBCASE("a link to a device the system does not have") {
    const std::string system = dir / "bad_link.json";
    write_file(system, two_gpu_system("", "gpu7"));
    expect_bad_train(dir, {"--system", system, "--batch", "64"}, {system, "links[0].between", "gpu7"});
  }
  SUBCASE("a model that fits no device, however it is split") {
    const std::string system = dir / "tiny_memory.json";
    write_file(system, two_gpu_system(R"(, "memory_gib": 0.001)"));
    const RunResult r = expect_bad_train(dir, {"--system", system, "--batch", "8", "--parallel", "tensor"}, {"fit"});
    CHECK(!contains(r.err, "internal"));
  }
  SUBCASE("a missing system file") {
    expect_bad_train(dir, {"--system", dir / "nope.json", "--batch", "64"}, {"nope.json"});
  }
}

TEST_CASE("loom train: the same run writes byte-identical reports") {
  TempDir dir;
  const std::vector<std::string> common = {"train", "--system", kDgx1, "--batch", "128", "--fuse", "-q"};
  std::vector<std::string> a = common, b = common;
  a.insert(a.end(), {"--out", dir / "a"});
  b.insert(b.end(), {"--out", dir / "b"});
  const RunResult ra = run_loom(dir, a), rb = run_loom(dir, b);
  INFO("stderr: " << ra.err << rb.err);
  REQUIRE(ra.code == 0);
  REQUIRE(rb.code == 0);
  CHECK(ra.out == rb.out);
  for (const char* file : {"report.json", "kernels.csv", "timeline.csv", "report.html"}) {
    CHECK_MESSAGE(read_file(dir.path() / "a" / file) == read_file(dir.path() / "b" / file), file << " differs");
  }
}

TEST_CASE("train report: Gantt bars merge only past the cap, within rows and phases") {
  using loom::GanttBar;
  std::vector<GanttBar> bars;
  // Row 0: 100 tiny forward bars, then 100 tiny backward bars; row 1: 50 tiny comm bars.
  for (int i = 0; i < 200; ++i)
    bars.push_back({0, i * 1e-6, i * 1e-6 + 0.8e-6, i < 100 ? "forward" : "backward", "k" + std::to_string(i)});
  for (int i = 0; i < 50; ++i) bars.push_back({1, i * 2e-6, i * 2e-6 + 1e-6, "all_reduce", "b" + std::to_string(i)});

  SUBCASE("under the cap: every bar, sorted by row then start") {
    const auto merged = loom::merge_gantt_bars(bars, 1000, 1e-6);
    REQUIRE(merged.size() == bars.size());
    CHECK(merged.front().bar.label == "k0");
    CHECK(merged[200].bar.row == 1);
  }
  SUBCASE("over the cap: neighbours of one phase merge, phases and rows stay apart") {
    const auto merged = loom::merge_gantt_bars(bars, 3, 1e-6);
    REQUIRE(merged.size() == 3);
    CHECK(merged[0].bar.phase == "forward");
    CHECK(merged[0].count == 100);
    CHECK(merged[0].bar.label == "k0");
    CHECK(merged[0].last_label == "k99");
    CHECK(merged[0].bar.end == doctest::Approx(99.8e-6));
    CHECK(merged[1].bar.phase == "backward");
    CHECK(merged[1].count == 100);
    CHECK(merged[2].bar.row == 1);
    CHECK(merged[2].count == 50);
  }
  SUBCASE("the chart draws the merged bars and says so") {
    loom::GanttChart chart;
    chart.rows = {"gpu0 compute", "gpu0 comm"};
    chart.bars = bars;
    chart.phases = {{"forward", "#0072B2"}, {"backward", "#E69F00"}, {"all_reduce", "#D55E00"}};
    chart.max_bars = 3;
    const std::string svg = loom::svg_gantt(chart);
    CHECK(count_of(svg, "class=\"timeline-bar\"") == 3);
    CHECK(contains(svg, "250 events drawn as 3 bars"));
    CHECK(contains(svg, "time in the step (ms)"));
    chart.max_bars = 2000;
    CHECK(count_of(loom::svg_gantt(chart), "class=\"timeline-bar\"") == 250);
  }
}

TEST_CASE("train report: memory bars with a capacity mark, over-capacity rows flagged") {
  loom::CapacityBarChart chart;
  chart.x_label = "memory per device (GiB)";
  chart.mark_class = "memory-segment";
  chart.series = {"weights", "activations"};
  chart.rows = {"gpu0", "gpu1", "cpu"};
  chart.values = {{1, 2}, {10, 10}, {1, 0}};
  chart.capacity = {16, 16, 0};
  const std::string svg = loom::svg_capacity_bars(chart);
  CHECK(count_of(svg, "class=\"memory-segment\"") == 5);  // zero segments are not drawn
  CHECK(count_of(svg, "class=\"capacity-mark\"") == 2);   // unknown capacity: no mark
  CHECK(count_of(svg, "fill=\"#b00\">gpu1<") == 1);       // 20 GiB > 16 GiB: red label
  CHECK(count_of(svg, "fill=\"#b00\">gpu0<") == 0);
}
