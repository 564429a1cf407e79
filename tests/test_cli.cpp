// End-to-end tests of the `loom` executable: help/version, a full `loom run` and its
// reports, and the bad-input contract (exit 2, one stderr line naming file and field, no
// report left behind). The binary runs as a child process with its output redirected into
// a fresh temporary directory.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

namespace {

size_t count_lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A small valid architecture: 8x8 WS, roomy SRAM, finite DRAM.
const char* kGoodArch = R"({
  "schema": "loom-arch/1",
  "name": "tiny_8x8_ws",
  "clock_hz": 1000000000,
  "array": {"rows": 8, "cols": 8, "dataflow": "ws"},
  "data_type": "int8",
  "sram": {"ifmap_kib": 16, "filter_kib": 16, "ofmap_kib": 16, "double_buffered": true},
  "dram": {"bandwidth_bytes_per_cycle": 16, "latency_cycles": 10, "technology": "DDR3"}
}
)";

// A two-layer network: a small padded conv and a small GEMM.
const char* kGoodNet = R"({
  "schema": "loom-network/1",
  "name": "tiny_net",
  "batch": 1,
  "layers": [
    {"name": "conv1", "type": "conv2d", "input_hw": 8, "in_channels": 3, "out_channels": 8, "kernel": 3, "padding": 1},
    {"name": "fc1", "type": "gemm", "m": 4, "n": 16, "k": 32}
  ]
}
)";

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const size_t pos = s.find(from);
  REQUIRE_MESSAGE(pos != std::string::npos, "test bug: '" << from << "' not in template");
  return s.replace(pos, from.size(), to);
}

// Writes the good arch/workload (or the given replacements) into `dir` and returns paths.
struct Inputs {
  std::string arch, workload;
};

Inputs good_inputs(const TempDir& dir) {
  Inputs in{dir / "arch.json", dir / "net.json"};
  write_file(in.arch, kGoodArch);
  write_file(in.workload, kGoodNet);
  return in;
}

// Runs `loom run` on bad input and checks the bad-input contract: exit 2, exactly one
// stderr line "loom: error: ..." naming `file_needle` and `field_needle`, and no report
// (indeed no file at all) in the --out directory.
void expect_bad_input(const TempDir& dir, const std::string& arch, const std::string& workload,
                      const std::string& file_needle, const std::string& field_needle,
                      const std::vector<std::string>& extra_args = {}) {
  static int n = 0;
  const fs::path out = dir.path() / ("out_bad_" + std::to_string(n++));
  std::vector<std::string> args = {"run", "--arch", arch, "--workload", workload, "--out", out.string(), "-q"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  const RunResult r = run_loom(dir, args);
  if (std::getenv("LOOM_CLI_TEST_SHOW")) MESSAGE(r.err);  // run with -s to review every message
  INFO("stderr: " << r.err);
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(!r.err.empty());
  if (!r.err.empty()) CHECK(r.err.back() == '\n');
  CHECK(r.err.rfind("loom: error: ", 0) == 0);
  CHECK(contains(r.err, file_needle));
  CHECK(contains(r.err, field_needle));
  CHECK(!contains(r.err, "internal error"));
  CHECK(!fs::exists(out / "report.json"));
  CHECK((!fs::exists(out) || fs::is_empty(out)));
}

}  // namespace

TEST_CASE("loom CLI: help, version and argument errors") {
  TempDir dir;

  SUBCASE("--help exits 0 and lists the run subcommand") {
    const RunResult r = run_loom(dir, {"--help"});
    CHECK(r.code == 0);
    CHECK(contains(r.out, "run"));
    CHECK(contains(r.out, "Usage"));
  }
  SUBCASE("run --help exits 0 and lists its options") {
    const RunResult r = run_loom(dir, {"run", "--help"});
    CHECK(r.code == 0);
    CHECK(contains(r.out, "--arch"));
    CHECK(contains(r.out, "--workload"));
    CHECK(contains(r.out, "--out"));
    CHECK(contains(r.out, "--scalesim-compat"));
  }
  SUBCASE("--version prints 'loom 0.' and exits 0") {
    const RunResult r = run_loom(dir, {"--version"});
    CHECK(r.code == 0);
    CHECK(r.out.rfind("loom 0.", 0) == 0);
  }
  SUBCASE("no subcommand exits 2") {
    const RunResult r = run_loom(dir, {});
    CHECK(r.code == 2);
    CHECK(!r.err.empty());
  }
  SUBCASE("unknown top-level flag exits 2") {
    const RunResult r = run_loom(dir, {"--no-such-flag"});
    CHECK(r.code == 2);
    CHECK(!r.err.empty());  // CLI11 reports the missing subcommand first, not the flag
  }
  SUBCASE("unknown run flag exits 2") {
    const RunResult r = run_loom(dir, {"run", "--no-such-flag"});
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--no-such-flag"));
  }
  SUBCASE("unknown subcommand exits 2") {
    const RunResult r = run_loom(dir, {"simulate"});
    CHECK(r.code == 2);
  }
  SUBCASE("--arch without a value exits 2") {
    const RunResult r = run_loom(dir, {"run", "--arch"});
    CHECK(r.code == 2);
  }
}

TEST_CASE("loom CLI: a successful run writes complete, deterministic reports") {
  TempDir dir;
  const Inputs in = good_inputs(dir);
  const fs::path out1 = dir.path() / "out1";
  const fs::path out2 = dir.path() / "out2";

  const RunResult r1 = run_loom(dir, {"run", "--arch", in.arch, "--workload", in.workload, "--out", out1.string()});
  INFO("stderr: " << r1.err);
  REQUIRE(r1.code == 0);
  CHECK(r1.err.empty());
  CHECK(contains(r1.out, "conv1"));
  CHECK(contains(r1.out, "fc1"));
  REQUIRE(fs::is_regular_file(out1 / "report.json"));
  REQUIRE(fs::is_regular_file(out1 / "layers.csv"));
  REQUIRE(fs::is_regular_file(out1 / "resolved_config.json"));
  // Atomic writes leave no temporary files behind.
  for (const auto& entry : fs::directory_iterator(out1)) {
    CHECK_MESSAGE(entry.path().extension() != ".tmp", entry.path().string());
  }

  SUBCASE("report.json has the documented fields") {
    const nlohmann::json report = nlohmann::json::parse(read_file(out1 / "report.json"));
    CHECK(report.contains("schema_version"));
    CHECK(report.at("conventions") == "loom");
    CHECK(report.at("tool").at("name") == "loom");
    const nlohmann::json& layers = report.at("layers");
    REQUIRE(layers.is_array());
    REQUIRE(layers.size() == 2);
    CHECK(layers[0].at("name") == "conv1");
    CHECK(layers[1].at("name") == "fc1");
    int64_t sum_total = 0;
    for (const nlohmann::json& l : layers) {
      const nlohmann::json& cyc = l.at("cycles");
      const int64_t total = cyc.at("total").get<int64_t>();
      const int64_t compute = cyc.at("compute").get<int64_t>();
      const int64_t stall = cyc.at("stall").get<int64_t>();
      CHECK(total > 0);
      CHECK(compute > 0);
      CHECK(stall >= 0);
      CHECK(total == compute + stall);
      sum_total += total;
      const double util = l.at("utilization").get<double>();
      CHECK(util > 0.0);
      CHECK(util <= 1.0);
      CHECK(l.at("sram").at("ifmap").at("reads").get<int64_t>() > 0);
      CHECK(l.at("dram").at("read_bytes").get<int64_t>() > 0);
      CHECK(l.at("energy_pj").at("total").get<double>() > 0.0);
    }
    CHECK(report.at("totals").at("cycles").at("total").get<int64_t>() == sum_total);
    CHECK(report.at("workload").at("layers") == 2);
    CHECK(report.at("arch").at("rows") == 8);
  }

  SUBCASE("layers.csv has a header, one row per layer and a total row") {
    std::istringstream csv(read_file(out1 / "layers.csv"));
    std::vector<std::string> lines;
    for (std::string line; std::getline(csv, line);) lines.push_back(line);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0].rfind("name,", 0) == 0);
    CHECK(contains(lines[0], "cycles_total"));
    CHECK(lines[1].rfind("\"conv1\",", 0) == 0);
    CHECK(lines[2].rfind("\"fc1\",", 0) == 0);
    CHECK(lines[3].rfind("\"total\",", 0) == 0);
    const auto columns = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
    for (size_t i = 1; i < lines.size(); ++i) CHECK(columns(lines[i]) == columns(lines[0]));
  }

  SUBCASE("resolved_config.json round-trips the architecture") {
    const nlohmann::json cfg = nlohmann::json::parse(read_file(out1 / "resolved_config.json"));
    CHECK(cfg.at("name") == "tiny_8x8_ws");
    CHECK(cfg.at("array").at("rows") == 8);
    CHECK(cfg.at("array").at("dataflow") == "ws");
  }

  SUBCASE("a second identical run gives a byte-identical report.json") {
    const RunResult r2 =
        run_loom(dir, {"run", "--arch", in.arch, "--workload", in.workload, "--out", out2.string(), "-q"});
    REQUIRE(r2.code == 0);
    CHECK(count_lines(r2.out) == 1);  // -q: the totals line only
    CHECK(read_file(out1 / "report.json") == read_file(out2 / "report.json"));
    CHECK(read_file(out1 / "layers.csv") == read_file(out2 / "layers.csv"));
  }

  SUBCASE("rerunning into the same --out overwrites the reports") {
    const RunResult r2 =
        run_loom(dir, {"run", "--arch", in.arch, "--workload", in.workload, "--out", out1.string(), "-q"});
    CHECK(r2.code == 0);
    CHECK(fs::is_regular_file(out1 / "report.json"));
  }
}

TEST_CASE("loom CLI: --scalesim-compat and SCALE-Sim input files") {
  TempDir dir;

  SUBCASE("--scalesim-compat on loom JSON inputs") {
    const Inputs in = good_inputs(dir);
    const fs::path out = dir.path() / "out_compat";
    const RunResult r = run_loom(
        dir, {"run", "--arch", in.arch, "--workload", in.workload, "--out", out.string(), "--scalesim-compat"});
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    CHECK(contains(r.out, "SCALE-Sim conventions"));
    const nlohmann::json report = nlohmann::json::parse(read_file(out / "report.json"));
    CHECK(report.at("conventions") == "scalesim-compat");
  }

  SUBCASE("a SCALE-Sim .cfg and topology .csv run end to end") {
    const std::string csv = dir / "topo.csv";
    write_file(csv, "Layer, M, N, K,\nL1, 16, 8, 32,\nL2, 8, 40, 16,\n");
    const fs::path out = dir.path() / "out_scalesim";
    const RunResult r = run_loom(dir, {"run", "--arch", std::string(LOOM_SOURCE_DIR) + "/configs/scalesim/scale.cfg",
                                       "--workload", csv, "--out", out.string(), "--scalesim-compat", "-q"});
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json report = nlohmann::json::parse(read_file(out / "report.json"));
    CHECK(report.at("conventions") == "scalesim-compat");
    REQUIRE(report.at("layers").size() == 2);
    CHECK(report.at("layers")[0].at("name") == "L1");
    CHECK(report.at("arch").at("rows") == 32);
  }
}

TEST_CASE("loom CLI: bad input exits 2 with one line naming file and field, and writes no report") {
  TempDir dir;
  const Inputs good = good_inputs(dir);

  SUBCASE("malformed (truncated) JSON architecture") {
    const std::string arch = dir / "truncated_arch.json";
    const std::string text = kGoodArch;
    write_file(arch, text.substr(0, text.find("\"sram\"")));
    expect_bad_input(dir, arch, good.workload, "truncated_arch.json", "line ");
    expect_bad_input(dir, arch, good.workload, "truncated_arch.json", "column ");
  }
  SUBCASE("malformed JSON workload") {
    const std::string net = dir / "broken_net.json";
    write_file(net, "{\n  \"name\": \"x\",\n  \"layers\": [ {\"name\": \"a\",, } ]\n}\n");
    expect_bad_input(dir, good.arch, net, "broken_net.json", "line 3 column");
  }
  SUBCASE("empty JSON architecture file") {
    const std::string arch = dir / "empty_arch.json";
    write_file(arch, "");
    expect_bad_input(dir, arch, good.workload, "empty_arch.json", "malformed JSON");
  }
  SUBCASE("JSON architecture that is not an object") {
    const std::string arch = dir / "array_arch.json";
    write_file(arch, "[1, 2, 3]\n");
    expect_bad_input(dir, arch, good.workload, "array_arch.json", "expected a JSON object");
  }
  SUBCASE("unknown key in the architecture") {
    const std::string arch = dir / "typo_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"cols\": 8", "\"cols\": 8, \"colums\": 8"));
    expect_bad_input(dir, arch, good.workload, "typo_arch.json", "array.colums");
    expect_bad_input(dir, arch, good.workload, "typo_arch.json", "unknown key");
  }
  SUBCASE("misspelt key in the architecture (the correct one missing)") {
    const std::string arch = dir / "misspelt_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"cols\": 8", "\"colums\": 8"));
    // The required key is checked before unknown keys, so the message names array.cols
    // and points at the near miss.
    expect_bad_input(dir, arch, good.workload, "misspelt_arch.json", "array.cols");
    expect_bad_input(dir, arch, good.workload, "misspelt_arch.json", "found unknown key 'colums'");
  }
  SUBCASE("unknown top-level key in the architecture") {
    const std::string arch = dir / "extra_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"data_type\"", "\"frequency\": 1, \"data_type\""));
    expect_bad_input(dir, arch, good.workload, "extra_arch.json", "frequency");
  }
  SUBCASE("unknown key in a workload layer") {
    const std::string net = dir / "typo_net.json";
    write_file(net, replace_once(kGoodNet, "\"kernel\": 3", "\"kernel\": 3, \"kernal\": 3"));
    expect_bad_input(dir, good.arch, net, "typo_net.json", "layers[0].kernal");
  }
  SUBCASE("missing clock_hz in the architecture") {
    const std::string arch = dir / "noclock_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"clock_hz\": 1000000000,", ""));
    expect_bad_input(dir, arch, good.workload, "noclock_arch.json", "clock_hz");
    expect_bad_input(dir, arch, good.workload, "noclock_arch.json", "missing required field");
  }
  SUBCASE("missing in_channels in a conv layer") {
    const std::string net = dir / "nochan_net.json";
    write_file(net, replace_once(kGoodNet, "\"in_channels\": 3, ", ""));
    expect_bad_input(dir, good.arch, net, "nochan_net.json", "layers[0].in_channels");
  }
  SUBCASE("zero array rows") {
    const std::string arch = dir / "zero_rows_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"rows\": 8", "\"rows\": 0"));
    expect_bad_input(dir, arch, good.workload, "zero_rows_arch.json", "array.rows");
  }
  SUBCASE("negative SRAM size") {
    const std::string arch = dir / "neg_sram_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"ifmap_kib\": 16", "\"ifmap_kib\": -1"));
    expect_bad_input(dir, arch, good.workload, "neg_sram_arch.json", "sram.ifmap_kib");
  }
  SUBCASE("negative out_channels") {
    const std::string net = dir / "neg_out_net.json";
    write_file(net, replace_once(kGoodNet, "\"out_channels\": 8", "\"out_channels\": -3"));
    expect_bad_input(dir, good.arch, net, "neg_out_net.json", "layers[0].out_channels");
  }
  SUBCASE("zero GEMM dimension") {
    const std::string net = dir / "zero_m_net.json";
    write_file(net, replace_once(kGoodNet, "\"m\": 4", "\"m\": 0"));
    expect_bad_input(dir, good.arch, net, "zero_m_net.json", "layers[1].m");
  }
  SUBCASE("wrong type: rows is a string") {
    const std::string arch = dir / "string_rows_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"rows\": 8", "\"rows\": \"abc\""));
    expect_bad_input(dir, arch, good.workload, "string_rows_arch.json", "array.rows");
  }
  SUBCASE("wrong type: fractional rows") {
    const std::string arch = dir / "frac_rows_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"rows\": 8", "\"rows\": 8.5"));
    expect_bad_input(dir, arch, good.workload, "frac_rows_arch.json", "array.rows");
  }
  SUBCASE("bad dataflow name in JSON") {
    const std::string arch = dir / "df_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"dataflow\": \"ws\"", "\"dataflow\": \"rs\""));
    expect_bad_input(dir, arch, good.workload, "df_arch.json", "array.dataflow");
  }
  SUBCASE("conv kernel larger than its padded input") {
    const std::string net = dir / "big_kernel_net.json";
    write_file(net, replace_once(kGoodNet, "\"kernel\": 3, \"padding\": 1", "\"kernel\": 11, \"padding\": 1"));
    expect_bad_input(dir, good.arch, net, "big_kernel_net.json", "layers[0].kernel");
  }
  SUBCASE("duplicate layer names") {
    const std::string net = dir / "dup_net.json";
    write_file(net, replace_once(kGoodNet, "\"name\": \"fc1\"", "\"name\": \"conv1\""));
    expect_bad_input(dir, good.arch, net, "dup_net.json", "layers[1].name");
  }
  SUBCASE("workload with no layers") {
    const std::string net = dir / "nolayers_net.json";
    write_file(net, "{\"name\": \"empty\", \"layers\": []}\n");
    expect_bad_input(dir, good.arch, net, "nolayers_net.json", "layers");
  }
  SUBCASE("SRAM too small for one fold's filter tile") {
    const std::string arch = dir / "small_sram_arch.json";
    std::string text = replace_once(kGoodArch, "\"rows\": 8, \"cols\": 8", "\"rows\": 128, \"cols\": 128");
    text = replace_once(text, "\"filter_kib\": 16", "\"filter_kib\": 4");
    write_file(arch, text);
    const std::string net = dir / "wide_net.json";
    write_file(net, R"({"name": "wide", "layers": [{"name": "g", "type": "gemm", "m": 4, "n": 128, "k": 128}]})");
    expect_bad_input(dir, arch, net, "small_sram_arch.json", "sram.filter_kib");
  }
  SUBCASE("missing architecture file") {
    const std::string arch = dir / "no_such_arch.json";
    expect_bad_input(dir, arch, good.workload, "no_such_arch.json", "cannot open");
  }
  SUBCASE("missing workload file") {
    const std::string net = dir / "no_such_net.json";
    expect_bad_input(dir, good.arch, net, "no_such_net.json", "cannot open");
  }
  SUBCASE("missing .cfg and .csv files") {
    expect_bad_input(dir, dir / "no_such.cfg", good.workload, "no_such.cfg", "cannot open");
    expect_bad_input(dir, good.arch, dir / "no_such.csv", "no_such.csv", "cannot open");
  }
  SUBCASE("unsupported architecture extension") {
    const std::string arch = dir / "arch.txt";
    write_file(arch, kGoodArch);
    expect_bad_input(dir, arch, good.workload, "arch.txt", "--arch");
  }
  SUBCASE("unsupported workload extension") {
    const std::string net = dir / "net.txt";
    write_file(net, kGoodNet);
    expect_bad_input(dir, good.arch, net, "net.txt", "--workload");
  }
  SUBCASE("SCALE-Sim CSV row with the wrong number of cells") {
    const std::string csv = dir / "short_row.csv";
    write_file(csv, "Layer, M, N, K,\nL1, 16, 8, 32,\nL2, 16, 8,\n");
    expect_bad_input(dir, good.arch, csv, "short_row.csv", "line 3");
  }
  SUBCASE("SCALE-Sim conv CSV row with the wrong number of cells") {
    const std::string csv = dir / "short_conv.csv";
    write_file(csv,
               "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
               "Strides,\nConv1, 8, 8, 3, 3, 3,\n");
    expect_bad_input(dir, good.arch, csv, "short_conv.csv", "line 2");
  }
  SUBCASE("SCALE-Sim CSV with a non-integer cell") {
    const std::string csv = dir / "nonint.csv";
    write_file(csv, "Layer, M, N, K,\nL1, 16, eight, 32,\n");
    expect_bad_input(dir, good.arch, csv, "nonint.csv", "line 2, column 'N'");
  }
  SUBCASE("SCALE-Sim CSV with an unknown header") {
    const std::string csv = dir / "badheader.csv";
    write_file(csv, "Name, Rows, Cols,\nL1, 16, 8,\n");
    expect_bad_input(dir, good.arch, csv, "badheader.csv", "line 1");
  }
  SUBCASE("SCALE-Sim .cfg with an unknown key") {
    const std::string cfg = dir / "unknown_key.cfg";
    write_file(cfg,
               "[architecture_presets]\nArrayHeight: 8\nArrayWidth: 8\nIfmapSramSzkB: 16\nFilterSramSzkB: 16\n"
               "OfmapSramSzkB: 16\nDataflow: ws\nBandwidth: 10\nArrayDepth: 4\n[run_presets]\n"
               "InterfaceBandwidth: USER\n");
    expect_bad_input(dir, cfg, good.workload, "unknown_key.cfg", "line 9, key 'ArrayDepth'");
  }
  SUBCASE("SCALE-Sim .cfg with a bad dataflow") {
    const std::string cfg = dir / "bad_df.cfg";
    write_file(cfg,
               "[architecture_presets]\nArrayHeight: 8\nArrayWidth: 8\nIfmapSramSzkB: 16\nFilterSramSzkB: 16\n"
               "OfmapSramSzkB: 16\nDataflow: rs\nBandwidth: 10\n[run_presets]\nInterfaceBandwidth: USER\n");
    expect_bad_input(dir, cfg, good.workload, "bad_df.cfg", "key 'Dataflow'");
  }
  SUBCASE("SCALE-Sim .cfg missing a required key") {
    const std::string cfg = dir / "no_width.cfg";
    write_file(cfg,
               "[architecture_presets]\nArrayHeight: 8\nIfmapSramSzkB: 16\nFilterSramSzkB: 16\n"
               "OfmapSramSzkB: 16\nDataflow: ws\nBandwidth: 10\n[run_presets]\nInterfaceBandwidth: USER\n");
    expect_bad_input(dir, cfg, good.workload, "no_width.cfg", "ArrayWidth");
  }
  SUBCASE("unlimited DRAM with a non-zero latency") {
    const std::string arch = dir / "unlimited_latency_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"bandwidth_bytes_per_cycle\": 16",
                                  "\"bandwidth_bytes_per_cycle\": \"unlimited\""));
    expect_bad_input(dir, arch, good.workload, "unlimited_latency_arch.json", "dram.latency_cycles");
  }
  SUBCASE("both DRAM bandwidth forms given") {
    const std::string arch = dir / "two_bw_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"bandwidth_bytes_per_cycle\": 16",
                                  "\"bandwidth_bytes_per_cycle\": 16, \"bandwidth_gb_s\": 16"));
    expect_bad_input(dir, arch, good.workload, "two_bw_arch.json", "dram.bandwidth");
  }
  SUBCASE("--out is an existing regular file") {
    const std::string blocker = dir / "not_a_dir";
    write_file(blocker, "occupied\n");
    const RunResult r =
        run_loom(dir, {"run", "--arch", good.arch, "--workload", good.workload, "--out", blocker, "-q"});
    INFO("stderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.rfind("loom: error: ", 0) == 0);
    CHECK(contains(r.err, "not_a_dir"));
    CHECK(contains(r.err, "--out"));
    CHECK(read_file(blocker) == "occupied\n");  // untouched
  }
  SUBCASE("--out below an existing regular file") {
    const std::string blocker = dir / "plain_file";
    write_file(blocker, "x");
    const RunResult r = run_loom(
        dir, {"run", "--arch", good.arch, "--workload", good.workload, "--out", blocker + "/sub", "-q"});
    INFO("stderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(contains(r.err, "plain_file/sub"));
  }
}

TEST_CASE("loom CLI: sizes that would overflow, exhaust memory or time out are rejected up front") {
  TempDir dir;
  const Inputs good = good_inputs(dir);
  SUBCASE("huge padding (MACs would overflow 64 bits)") {
    const std::string net = dir / "huge_pad_net.json";
    write_file(net, replace_once(kGoodNet, "\"padding\": 1", "\"padding\": 1000000000"));
    expect_bad_input(dir, good.arch, net, "huge_pad_net.json", "layers[0].padding");
  }
  SUBCASE("a GEMM with more than 10^15 MACs") {
    const std::string net = dir / "huge_gemm_net.json";
    write_file(net, replace_once(kGoodNet, "\"m\": 4, \"n\": 16, \"k\": 32",
                                 "\"m\": 16000000, \"n\": 16000000, \"k\": 16000000"));
    expect_bad_input(dir, good.arch, net, "huge_gemm_net.json", "10^15 MACs");
  }
  SUBCASE("word_bits beyond 64") {
    const std::string arch = dir / "wide_word_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"data_type\": \"int8\",",
                                  "\"data_type\": \"int8\", \"word_bits\": {\"ofmap\": 4000000000},"));
    expect_bad_input(dir, arch, good.workload, "wide_word_arch.json", "word_bits.ofmap");
  }
  SUBCASE("a vanishing DRAM bandwidth") {
    const std::string arch = dir / "slow_dram_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"bandwidth_bytes_per_cycle\": 16", "\"bandwidth_bytes_per_cycle\": 1e-12"));
    expect_bad_input(dir, arch, good.workload, "slow_dram_arch.json", "dram.bandwidth_bytes_per_cycle");
  }
  SUBCASE("an absurd DRAM latency") {
    const std::string arch = dir / "late_dram_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"latency_cycles\": 10", "\"latency_cycles\": 9000000000000000000"));
    expect_bad_input(dir, arch, good.workload, "late_dram_arch.json", "dram.latency_cycles");
  }
  SUBCASE("a clock outside 1 kHz .. 1 THz") {
    const std::string arch = dir / "slow_clock_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"clock_hz\": 1000000000", "\"clock_hz\": 1e-300"));
    expect_bad_input(dir, arch, good.workload, "slow_clock_arch.json", "clock_hz");
  }
  SUBCASE("a network needing more than 10^7 folds") {
    const std::string net = dir / "many_folds_net.json";
    write_file(net, replace_once(kGoodNet, "\"m\": 4, \"n\": 16, \"k\": 32", "\"m\": 1, \"n\": 16000000, \"k\": 16000000"));
    expect_bad_input(dir, good.arch, net, "many_folds_net.json", "10^7 folds");
  }
  SUBCASE("a run that would exceed 10^15 simulated cycles") {
    const std::string arch = dir / "crawl_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"latency_cycles\": 10", "\"latency_cycles\": 1000000000"));
    const std::string net = dir / "long_net.json";
    write_file(net, replace_once(kGoodNet, "\"m\": 4, \"n\": 16, \"k\": 32", "\"m\": 8, \"n\": 800, \"k\": 80000"));
    expect_bad_input(dir, arch, net, "long_net.json", "10^15 cycles");
  }
  SUBCASE("an energy table with two SRAM points at the same capacity") {
    std::string table = read_file(std::string(LOOM_SOURCE_DIR) + "/configs/energy/horowitz_45nm.json");
    table = replace_once(table, "\"capacity_bytes\": 32768", "\"capacity_bytes\": 8192");
    write_file(dir / "dup_energy.json", table);
    const std::string arch = dir / "dup_energy_arch.json";
    write_file(arch, replace_once(kGoodArch, "\"data_type\"", "\"energy_table\": \"dup_energy.json\", \"data_type\""));
    expect_bad_input(dir, arch, good.workload, "dup_energy.json", "sram_pj_per_64b_access");
  }
}
