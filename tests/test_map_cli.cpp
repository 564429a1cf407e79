// End-to-end tests of `loom map` and of `loom run` on hierarchy architectures, through
// the built binary: a search writes a pinnable mapping.json that reproduces the same cost
// when fed back with --mapping; every bad pinned mapping or layer choice exits 2 with one
// error line naming the file, the level, the operand and the limit, and writes nothing;
// `loom run` maps a whole network and reports per-level counts.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_harness.h"

namespace fs = std::filesystem;
using namespace loom_test;
using nlohmann::json;

namespace {

const std::string kSrc = LOOM_SOURCE_DIR;
const std::string kEyeriss = kSrc + "/configs/eyeriss_like_rs.json";
const std::string kSystolic = kSrc + "/configs/systolic_32x32_ws.json";
const std::string kLenet = kSrc + "/workloads/networks/lenet5.json";

// LeNet-5's C3 on eyeriss_like_rs: N=1 K=16 C=6 P=10 Q=10 R=5 S=5. Levels DRAM, GLB (fan-out
// 14 x 12), RF (448 B of weights, 24 B of inputs, 48 B of outputs per PE).
std::vector<std::string> map_c3(const std::string& arch, const std::string& out) {
  return {"map", "--arch", arch, "--workload", kLenet, "--layer", "C3", "--out", out, "-j", "2"};
}

// A three-level mapping of C3 for eyeriss_like_rs, as JSON, with everything at DRAM.
json all_at_dram() {
  return json::parse(R"({"levels": [
      {"level": "DRAM", "temporal": {"K": 16, "C": 6, "P": 10, "Q": 10, "R": 5, "S": 5}},
      {"level": "GLB"},
      {"level": "RF"}]})");
}

// `loom map` with a pinned mapping must fail: exit 2, the last stderr line is the error
// (a dataflow warning may come before it), it names every needle, and no output is written.
void expect_pinned_error(const TempDir& dir, const json& mapping, const std::vector<std::string>& needles) {
  static int n = 0;
  const std::string file = dir / ("pinned_" + std::to_string(n) + ".json");
  const std::string out = dir / ("out_bad_" + std::to_string(n++));
  write_file(file, mapping.dump(2));
  std::vector<std::string> args = map_c3(kEyeriss, out);
  args.insert(args.end(), {"--mapping", file});
  const RunResult r = run_loom(dir, args);
  INFO("stderr: " << r.err);
  CHECK(r.code == 2);
  REQUIRE(!r.err.empty());
  const size_t start = r.err.rfind('\n', r.err.size() - 2);
  const std::string last = r.err.substr(start == std::string::npos ? 0 : start + 1);
  CHECK(last.rfind("loom: error: ", 0) == 0);
  CHECK(contains(last, file));
  for (const std::string& needle : needles) CHECK_MESSAGE(contains(last, needle), needle);
  CHECK(!contains(r.err, "internal error"));
  CHECK(!fs::exists(fs::path(out) / "mapping.json"));
  CHECK(!fs::exists(fs::path(out) / "map_report.json"));
}

// Searches, then pins the result and checks the cost is reproduced exactly.
void search_then_pin(const TempDir& dir, const std::string& arch, const std::string& tag) {
  const std::string out1 = dir / (tag + "_search");
  const std::string out2 = dir / (tag + "_pinned");
  const RunResult r1 = run_loom(dir, map_c3(arch, out1));
  INFO("stderr: " << r1.err);
  REQUIRE(r1.code == 0);
  CHECK(r1.err.empty());
  CHECK(contains(r1.out, "layer C3"));
  CHECK(contains(r1.out, "search: "));
  CHECK(contains(r1.out, "for "));
  CHECK(contains(r1.out, "spatial-"));
  CHECK(contains(r1.out, "utilization"));
  CHECK(contains(r1.out, "EDP"));
  REQUIRE(fs::is_regular_file(fs::path(out1) / "mapping.json"));
  REQUIRE(fs::is_regular_file(fs::path(out1) / "map_report.json"));
  const json rep1 = json::parse(read_file(fs::path(out1) / "map_report.json"));
  CHECK(rep1.at("command") == "map");
  CHECK(rep1.at("search").at("valid").get<int64_t>() > 0);
  CHECK(rep1.at("cost").at("cycles").at("total").get<int64_t>() > 0);
  CHECK(rep1.at("cost").at("energy_pj").at("total").get<double>() > 0);
  CHECK(rep1.at("mapping") == json::parse(read_file(fs::path(out1) / "mapping.json")));

  std::vector<std::string> args = map_c3(arch, out2);
  args.insert(args.end(), {"--mapping", (fs::path(out1) / "mapping.json").string()});
  const RunResult r2 = run_loom(dir, args);
  INFO("stderr: " << r2.err);
  REQUIRE(r2.code == 0);
  CHECK(contains(r2.out, "pinned"));
  const json rep2 = json::parse(read_file(fs::path(out2) / "map_report.json"));
  CHECK(rep2.at("search").at("method") == "pinned");
  CHECK(rep2.at("cost") == rep1.at("cost"));  // the same counts, cycles and energies
  CHECK(rep2.at("cost").at("energy_pj").at("total") == rep1.at("cost").at("energy_pj").at("total"));
  CHECK(rep2.at("cost").at("cycles").at("total") == rep1.at("cost").at("cycles").at("total"));
  CHECK(read_file(fs::path(out2) / "mapping.json") == read_file(fs::path(out1) / "mapping.json"));
}

}  // namespace

TEST_CASE("map cli: search, write mapping.json, pin it and get the same cost") {
  TempDir dir;
  SUBCASE("hierarchy architecture (eyeriss_like_rs, row-stationary)") { search_then_pin(dir, kEyeriss, "eyeriss"); }
  SUBCASE("systolic architecture, converted to a hierarchy") { search_then_pin(dir, kSystolic, "systolic"); }
}

TEST_CASE("map cli: --layer may be a workload file with one layer") {
  TempDir dir;
  const std::string net = dir / "one.json";
  write_file(net, R"({"name": "one", "layers": [{"name": "g", "type": "gemm", "m": 12, "n": 20, "k": 30}]})");
  const RunResult r = run_loom(dir, {"map", "--arch", kEyeriss, "--layer", net, "--out", dir / "o", "-q", "--search",
                              "random", "--budget", "500", "--seed", "7", "--objective", "latency"});
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "g: "));
  const json rep = json::parse(read_file(fs::path(dir / "o") / "map_report.json"));
  CHECK(rep.at("problem").at("bounds").at("M") == 12);
  CHECK(rep.at("mapper").at("objective") == "latency");
  CHECK(rep.at("mapper").at("seed") == 7);

  // A file with several layers is not a layer.
  const RunResult bad = run_loom(dir, {"map", "--arch", kEyeriss, "--layer", kLenet, "--out", dir / "o2"});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "--layer"));
  CHECK(contains(bad.err, "exactly one layer"));
}

TEST_CASE("map cli: bad pinned mappings and layer names exit 2 naming level, operand and limit") {
  TempDir dir;

  SUBCASE("a tile larger than a buffer") {
    json m = all_at_dram();
    m["levels"][0]["temporal"] = json::object();
    m["levels"][2]["temporal"] = {{"K", 16}, {"C", 6}, {"P", 10}, {"Q", 10}, {"R", 5}, {"S", 5}};
    // The RF holds 448 B of weights per PE; the whole 16x6x5x5 filter is 4,800 B.
    expect_pinned_error(dir, m, {"levels[2] (level RF, operand weights)", "4,800 B", "448 B"});
  }
  SUBCASE("a spatial fan-out larger than the array") {
    json m = all_at_dram();
    m["levels"][0]["temporal"].erase("K");
    m["levels"][1]["spatial_x"] = {{"K", 16}};  // the array has 14 columns
    expect_pinned_error(dir, m, {"levels[1] (level GLB)", "spatial-x", "14 columns"});
  }
  SUBCASE("factors that do not cover the layer") {
    json m = all_at_dram();
    m["levels"][0]["temporal"]["K"] = 8;
    expect_pinned_error(dir, m, {"loop K", "multiply to 8", "bound is 16"});
  }
  SUBCASE("factors that multiply beyond the layer") {
    json m = all_at_dram();
    m["levels"][2]["temporal"] = {{"R", 5}};
    expect_pinned_error(dir, m, {"levels[2].temporal.R", "R = 5"});
  }
  SUBCASE("an unknown level name") {
    json m = all_at_dram();
    m["levels"][1]["level"] = "L2";
    expect_pinned_error(dir, m, {"levels[1].level", "unknown level 'L2'", "DRAM, GLB, RF"});
  }
  SUBCASE("a wrong number of levels") {
    json m = all_at_dram();
    m["levels"].erase(1);
    expect_pinned_error(dir, m, {"levels", "expected 3 levels"});
  }
  SUBCASE("an unknown loop name") {
    json m = all_at_dram();
    m["levels"][1]["temporal"] = {{"M", 2}};  // a GEMM name; C3 is a convolution
    expect_pinned_error(dir, m, {"levels[1].temporal.M", "unknown loop 'M'"});
  }
  SUBCASE("an unknown key") {
    json m = all_at_dram();
    m["levels"][1]["spatial_z"] = {{"K", 2}};
    expect_pinned_error(dir, m, {"levels[1].spatial_z", "unknown key"});
  }
  SUBCASE("an unknown layer name lists some real ones") {
    const RunResult r = run_loom(dir, {"map", "--arch", kEyeriss, "--workload", kLenet, "--layer", "C4", "--out", dir / "o"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "lenet5.json: --layer: no layer named 'C4'"));
    CHECK(contains(r.err, "C1, C3, C5"));
    CHECK(!fs::exists(fs::path(dir / "o")));
  }
  SUBCASE("a layer no mapping can run names the rule") {
    // The row-stationary dataflow needs a filter's whole R on the array's rows; with 2 rows
    // no mapping of a 5x5 filter exists.
    json arch = json::parse(read_file(kEyeriss));
    arch["levels"][1]["fanout"]["y"] = 2;
    arch["energy_table"] = kSrc + "/configs/energy/eyeriss_relative.json";
    const std::string file = dir / "two_rows.json";
    write_file(file, arch.dump(2));
    const RunResult r = run_loom(dir, map_c3(file, dir / "o"));
    CHECK(r.code == 2);
    CHECK(contains(r.err, "two_rows.json: layer C3: "));
    CHECK(contains(r.err, "rs"));
    CHECK(contains(r.err, "R (5)"));
  }
  SUBCASE("a bad option value") {
    const RunResult r = run_loom(dir, {"map", "--layer", "conv1", "--objective", "speed"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--objective"));
  }
}

TEST_CASE("map cli: loom run maps every layer of a network on a hierarchy") {
  TempDir dir;
  const std::string out1 = dir / "run1";
  const RunResult r = run_loom(dir, {"run", "--arch", kEyeriss, "--workload", kLenet, "--out", out1, "-j", "2"});
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "C1"));
  CHECK(contains(r.out, "output"));
  CHECK(contains(r.out, "bound by"));
  const json rep = json::parse(read_file(fs::path(out1) / "report.json"));
  CHECK(rep.at("schema_version") == 1);
  CHECK(rep.at("fidelity") == "analytic");
  CHECK(rep.at("arch").at("kind") == "hierarchy");
  CHECK(rep.at("mapper").at("dataflow") == "rs");
  const json& layers = rep.at("layers");
  REQUIRE(layers.size() == 5);
  int64_t cycles = 0;
  double energy = 0;
  for (const json& l : layers) {
    INFO(l.at("name"));
    const json& cyc = l.at("cycles");
    CHECK(cyc.at("total").get<int64_t>() == cyc.at("compute").get<int64_t>() + cyc.at("stall").get<int64_t>());
    CHECK(cyc.at("stall").get<int64_t>() >= 0);
    cycles += cyc.at("total").get<int64_t>();
    CHECK(l.at("utilization").get<double>() > 0);
    CHECK(l.at("utilization").get<double>() <= 1);
    for (const char* level : {"DRAM", "GLB", "RF"}) {
      CHECK(l.at("levels").contains(level));
      CHECK(l.at("levels").at(level).at("reads").get<int64_t>() > 0);
      CHECK(l.at("energy_pj").contains(level));
    }
    CHECK(!l.at("levels").at("GLB").at("operands").contains("weights"));  // GLB bypasses weights
    CHECK(l.at("dram").at("read_bytes") == l.at("levels").at("DRAM").at("read_bytes"));
    CHECK(l.at("dram").at("write_bytes") == l.at("levels").at("DRAM").at("write_bytes"));
    const json& e = l.at("energy_pj");
    const double parts = e.at("mac").get<double>() + e.at("DRAM").get<double>() + e.at("GLB").get<double>() +
                         e.at("RF").get<double>() + e.at("network").get<double>() + e.at("leakage").get<double>();
    CHECK(parts == doctest::Approx(e.at("total").get<double>()).epsilon(1e-9));
    energy += e.at("total").get<double>();
    CHECK(l.at("mapping").at("levels").size() == 3);
  }
  CHECK(rep.at("totals").at("cycles").at("total") == cycles);
  CHECK(rep.at("totals").at("energy_pj").at("total").get<double>() == doctest::Approx(energy));

  std::istringstream csv(read_file(fs::path(out1) / "layers.csv"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  REQUIRE(lines.size() == 7);
  CHECK(contains(lines[0], "GLB_reads"));
  CHECK(lines[6].rfind("\"total\",network,", 0) == 0);
  const json resolved = json::parse(read_file(fs::path(out1) / "resolved_config.json"));
  CHECK(resolved.at("kind") == "hierarchy");

  // Deterministic whatever the thread count: the same report byte for byte.
  const std::string out2 = dir / "run2";
  const RunResult r2 = run_loom(dir, {"run", "--arch", kEyeriss, "--workload", kLenet, "--out", out2, "-j", "1", "-q"});
  REQUIRE(r2.code == 0);
  CHECK(read_file(fs::path(out1) / "report.json") == read_file(fs::path(out2) / "report.json"));
  CHECK(read_file(fs::path(out1) / "layers.csv") == read_file(fs::path(out2) / "layers.csv"));
}

TEST_CASE("map cli: mapper options are refused for systolic runs") {
  TempDir dir;
  const RunResult r = run_loom(dir, {"run", "--arch", kSystolic, "--workload", kLenet, "--out", dir / "o", "--search",
                              "random"});
  CHECK(r.code == 2);
  CHECK(contains(r.err, "--search"));
  CHECK(contains(r.err, "hierarchy"));
  CHECK(!fs::exists(fs::path(dir / "o")));
}
