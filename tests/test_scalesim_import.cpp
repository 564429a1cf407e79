// SCALE-Sim importers: topology CSV (conv and GEMM formats) and the .cfg architecture file.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "arch/systolic/systolic_config.h"
#include "sim/error.h"
#include "workloads/network.h"

using namespace loom;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string source_path(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

// SCALE-Sim's own per-layer numbers (scalesim/topology_utils.py, topo_calc_hyperparams).
int64_t scalesim_ofmap(int64_t in, int64_t filt, int64_t stride) {
  return (in - filt + stride + stride - 1) / stride;  // ceil((in - filt + stride) / stride)
}
int64_t scalesim_macs(int64_t h, int64_t w, int64_t r, int64_t s, int64_t c, int64_t k,
                      int64_t sh, int64_t sw) {
  return scalesim_ofmap(h, r, sh) * scalesim_ofmap(w, s, sw) * r * s * c * k;
}

// Expects an InputError whose message names the file and contains `where` (line or key).
template <typename F>
void expect_input_error(F&& f, const std::string& file, const std::string& where) {
  bool thrown = false;
  try {
    f();
  } catch (const InputError& e) {
    thrown = true;
    const std::string what = e.what();
    CHECK_MESSAGE(what.find(file) != std::string::npos, what);
    CHECK_MESSAGE(what.find(where) != std::string::npos, what);
  }
  CHECK_MESSAGE(thrown, "expected an InputError mentioning " << where);
}

void csv_error(const std::string& text, const std::string& where) {
  const std::string file = "bad_topo.csv";
  expect_input_error([&] { (void)parse_scalesim_csv(text, file); }, file, where);
}

void cfg_error(const std::string& text, const std::string& where) {
  const std::string file = "bad_arch.cfg";
  expect_input_error([&] { (void)parse_scalesim_cfg(text, file); }, file, where);
}

const char* kConvHeader =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n";

const char* kGoodCfg =
    "[general]\n"
    "run_name = t\n"
    "[architecture_presets]\n"
    "ArrayHeight: 16\n"
    "ArrayWidth: 8\n"
    "IfmapSramSzkB: 4\n"
    "FilterSramSzkB: 4\n"
    "OfmapSramSzkB: 2\n"
    "Dataflow: os\n"
    "Bandwidth: 10\n"
    "[run_presets]\n"
    "InterfaceBandwidth: USER\n";

}  // namespace

TEST_CASE("SCALE-Sim conv CSV: sample file parses to SCALE-Sim's shapes and MACs") {
  const std::string path = source_path("workloads/scalesim/example_conv.csv");
  const Network net = parse_scalesim_csv(read_text(path), path);
  CHECK(net.name == "example_conv");
  CHECK(net.source == "SCALE-Sim topology CSV " + path);
  CHECK(net.source_file == path);
  REQUIRE(net.layers.size() == 7);

  const Layer& c1 = net.layers[0];  // Conv1, 225, 225, 3, 3, 3, 32, 2
  CHECK(c1.name == "Conv1");
  CHECK(c1.kind == LayerKind::conv2d);
  CHECK(c1.conv.in_h == 225);
  CHECK(c1.conv.in_w == 225);
  CHECK(c1.conv.kernel_h == 3);
  CHECK(c1.conv.kernel_w == 3);
  CHECK(c1.conv.in_channels == 3);
  CHECK(c1.conv.out_channels == 32);
  CHECK(c1.conv.stride_h == 2);
  CHECK(c1.conv.stride_w == 2);
  CHECK(c1.conv.pad_h == 0);
  CHECK(c1.conv.groups == 1);
  CHECK(c1.out_h() == 112);
  CHECK(c1.macs() == scalesim_macs(225, 225, 3, 3, 3, 32, 2, 2));
  CHECK(c1.macs() == 112LL * 112 * 3 * 3 * 3 * 32);

  const Layer& dp = net.layers[1];  // Conv2_DP, 114, 114, 3, 3, 32, 1, 1: depthwise
  CHECK(dp.conv.groups == 32);
  CHECK(dp.conv.in_channels == 32);
  CHECK(dp.conv.out_channels == 32);
  CHECK(dp.out_h() == 112);
  // SCALE-Sim runs 32 single-channel layers, each 112*112*3*3*1*1 MACs.
  CHECK(dp.macs() == 32 * scalesim_macs(114, 114, 3, 3, 1, 1, 1, 1));
  const GemmView g = dp.gemm_view();
  CHECK(g.groups == 32);
  CHECK(g.m == 112 * 112);
  CHECK(g.n == 1);
  CHECK(g.k == 9);

  // Conv4_DP, 114, 114, 3, 3, 64, 1, 2: stride 2 does not divide 114 - 3, so SCALE-Sim's
  // ceil keeps a partial window (57, not 56); the importer pads to reproduce it.
  const Layer& dp2 = net.layers[3];
  CHECK(dp2.out_h() == scalesim_ofmap(114, 3, 2));
  CHECK(dp2.out_h() == 57);
  CHECK(dp2.macs() == 64 * scalesim_macs(114, 114, 3, 3, 1, 1, 2, 2));

  const Layer& alex = net.layers[5];  // AlexConv1, 224, 224, 11, 11, 3, 96, 4
  CHECK(alex.out_h() == 55);
  CHECK(alex.out_w() == 55);
  CHECK(alex.conv.in_h == 224);
  CHECK(alex.ifmap_elements() == 224LL * 224 * 3);
  CHECK(alex.macs() == scalesim_macs(224, 224, 11, 11, 3, 96, 4, 4));
  CHECK(alex.macs() == 105415200LL);

  const Layer& fc = net.layers[6];  // FC, 1, 1, 1, 1, 1024, 1000, 1
  CHECK(fc.macs() == 1024LL * 1000);

  int64_t total = 0;
  for (const Layer& l : net.layers) total += l.macs();
  CHECK(net.total_macs() == total);
}

TEST_CASE("SCALE-Sim GEMM CSV: sample file parses to m, n, k") {
  const std::string path = source_path("workloads/scalesim/example_gemm.csv");
  const Network net = parse_scalesim_csv(read_text(path), path);
  CHECK(net.name == "example_gemm");
  REQUIRE(net.layers.size() == 5);
  const Layer& l = net.layers[2];  // Linear1, 1024, 4800, 1600
  CHECK(l.name == "Linear1");
  CHECK(l.kind == LayerKind::gemm);
  CHECK(l.gemm.m == 1024);
  CHECK(l.gemm.n == 4800);
  CHECK(l.gemm.k == 1600);
  CHECK(l.macs() == 1024LL * 4800 * 1600);
}

TEST_CASE("SCALE-Sim CSV: format variants SCALE-Sim's own files use") {
  SUBCASE("9 columns: stride height then stride width; CRLF; blank lines; no trailing comma") {
    const std::string text =
        "Layer name,IFMAP height,IFMAP width,Filter height,Filter width,Channels,Num filter,Stride height,Stride width,\r\n"
        "\r\n"
        "a,10,20,3,5,4,8,1,3,\r\n"
        "b,10,10,3,3,4,8,2\r\n"
        ",,,,,,,,,\r\n";
    const Network net = parse_scalesim_csv(text, "dir/v2.topo.csv");
    CHECK(net.name == "v2.topo");
    REQUIRE(net.layers.size() == 2);
    CHECK(net.layers[0].conv.stride_h == 1);
    CHECK(net.layers[0].conv.stride_w == 3);
    CHECK(net.layers[0].out_h() == 8);
    CHECK(net.layers[0].out_w() == scalesim_ofmap(20, 5, 3));
    CHECK(net.layers[0].macs() == scalesim_macs(10, 20, 3, 5, 4, 8, 1, 3));
    CHECK(net.layers[1].conv.stride_w == 2);
    CHECK(net.layers[1].macs() == scalesim_macs(10, 10, 3, 3, 4, 8, 2, 2));
  }
  SUBCASE("'#' comments after the last comma, tab-indented names, 'Layer Name' GEMM header") {
    const Network conv = parse_scalesim_csv(
        std::string(kConvHeader) + "Conv2_dw, 112, 112, 3, 3, 1, 1, 1,#dw\n\tConv3,7,7,1,1,8,8,1,\n", "m.csv");
    REQUIRE(conv.layers.size() == 2);
    CHECK(conv.layers[1].name == "Conv3");
    const Network gemm = parse_scalesim_csv("Layer Name, M, N, K,\nTest 1, 256, 128, 256,", "g.csv");
    REQUIRE(gemm.layers.size() == 1);
    CHECK(gemm.layers[0].name == "Test 1");
    CHECK(gemm.layers[0].gemm.k == 256);
    const Network gpt = parse_scalesim_csv("layer,m,n,k\nQKT,1024,1024,64\n", "gpt2.csv");
    CHECK(gpt.layers[0].gemm.n == 1024);
  }
  SUBCASE("a DP row with several filters per channel keeps SCALE-Sim's MACs") {
    const Network net = parse_scalesim_csv(std::string(kConvHeader) + "DP1,16,16,3,3,8,2,1,\n", "d.csv");
    const Layer& l = net.layers[0];
    CHECK(l.conv.groups == 8);
    CHECK(l.conv.out_channels == 16);
    CHECK(l.macs() == 8 * scalesim_macs(16, 16, 3, 3, 1, 2, 1, 1));
  }
}

TEST_CASE("SCALE-Sim CSV: bad inputs name the file and the line") {
  const std::string h = kConvHeader;
  // Unknown header: names line 1 and both accepted headers.
  csv_error("Name, Height, Width\nx,1,1\n", "line 1");
  csv_error("Name, Height, Width\nx,1,1\n", "IFMAP Height");
  csv_error("Name, Height, Width\nx,1,1\n", "'Layer, M, N, K,'");
  csv_error("Layer, M, N, K, Batch,\nx,1,1,1,1,\n", "line 1");
  csv_error("", "line 1");
  // Malformed / wrong column count.
  csv_error(h + "conv1, 8, 8, 3, 3, 4, 4, 1,\nconv2 8 8 3 3 4 4 1\n", "line 3");
  csv_error(h + "conv1, 8, 8, 3, 3, 4, 4,\n", "line 2");
  csv_error(h + "conv1, 8, 8, 3, 3, 4, 4, 1, 1, 1,\n", "line 2");
  csv_error("Layer, M, N, K,\ng, 1, 2,\n", "line 2");
  // Non-integer values.
  csv_error(h + "\nconv1, 8, 8, 3, 3.5, 4, 4, 1,\n", "line 3, column 'Filter Width'");
  csv_error(h + "conv1, 8, x, 3, 3, 4, 4, 1,\n", "line 2, column 'IFMAP Width'");
  csv_error(h + "conv1, 8, , 3, 3, 4, 4, 1,\n", "line 2, column 'IFMAP Width'");
  csv_error("Layer, M, N, K,\ng, 1, 2, k,\n", "line 2, column 'K'");
  // Zero / negative.
  csv_error(h + "conv1, 8, 8, 3, 3, 0, 4, 1,\n", "line 2, column 'Channels'");
  csv_error(h + "conv1, 8, 8, 3, 3, 4, -4, 1,\n", "line 2, column 'Num Filter'");
  csv_error(h + "conv1, 8, 8, 3, 3, 4, 4, 1, 0,\n", "line 2, column 'Stride Width'");
  csv_error("Layer, M, N, K,\ng, 0, 2, 3,\n", "line 2, column 'M'");
  // Filter larger than the input.
  csv_error(h + "conv1, 8, 8, 3, 3, 4, 4, 1,\nconv2, 4, 8, 5, 3, 4, 4, 1,\n", "line 3, column 'Filter Height'");
  csv_error(h + "conv1, 8, 2, 3, 3, 4, 4, 1,\n", "line 2, column 'Filter Width'");
  // Duplicate names, no layers, empty name.
  csv_error(h + "conv1, 8, 8, 3, 3, 4, 4, 1,\nconv1, 8, 8, 3, 3, 4, 4, 1,\n", "line 3");
  csv_error(h + "conv1, 8, 8, 3, 3, 4, 4, 1,\nconv1, 8, 8, 3, 3, 4, 4, 1,\n", "line 2");
  csv_error(h, "layer row");
  csv_error(h + " , 8, 8, 3, 3, 4, 4, 1,\n", "line 2, column 'Layer name'");
}

TEST_CASE("SCALE-Sim cfg: scale.cfg maps onto SystolicConfig") {
  const std::string path = source_path("configs/scalesim/scale.cfg");
  const SystolicConfig c = parse_scalesim_cfg(read_text(path), path);
  CHECK(c.name == "scale_example_run_32x32_ws");
  CHECK(c.source_file == path);
  CHECK(c.rows == 32);
  CHECK(c.cols == 32);
  CHECK(c.dataflow == Dataflow::ws);
  CHECK(c.sram.ifmap_bytes == 64 * 1024);
  CHECK(c.sram.filter_bytes == 64 * 1024);
  CHECK(c.sram.ofmap_bytes == 64 * 1024);
  CHECK(c.sram.double_buffered);
  CHECK(c.data_type == DataType::int8);
  CHECK(c.ifmap_bits == 8);
  CHECK(c.filter_bits == 8);
  CHECK(c.ofmap_bits == 8);
  CHECK_FALSE(c.dram.unlimited);
  CHECK(c.dram.bytes_per_cycle == doctest::Approx(10.0));
  CHECK(c.dram.latency_cycles == 0);
  CHECK(c.clock_hz == doctest::Approx(1e9));
  CHECK(c.energy_table == "<embedded>:default_energy");
  CHECK(c.description.find("SCALE-Sim") != std::string::npos);
  CHECK(c.description.find("IfmapOffset") != std::string::npos);  // listed as ignored
}

TEST_CASE("SCALE-Sim cfg: google.cfg (CALC) and syntax variants") {
  const std::string path = source_path("configs/scalesim/google.cfg");
  const SystolicConfig g = parse_scalesim_cfg(read_text(path), path);
  CHECK(g.rows == 128);
  CHECK(g.cols == 128);
  CHECK(g.dataflow == Dataflow::ws);
  CHECK(g.sram.ifmap_bytes == 6144 * 1024);
  CHECK(g.sram.ofmap_bytes == 2048 * 1024);
  CHECK(g.dram.unlimited);
  CHECK(g.dram.latency_cycles == 0);

  // configparser syntax: '=' and ':', any key case, comments, CRLF; Bandwidth list -> min.
  const std::string text =
      "; comment\r\n# another\r\n[general]\r\n"
      "[architecture_presets]\r\n"
      "arrayheight = 4\r\nARRAYWIDTH=8\r\nifmapsramszkb : 1\r\nFilterSramSzkB:2 ; inline\r\n"
      "OfmapSramSzkB: 3\r\nDataflow = IS\r\nBandwidth : 20, 5 ,12\r\nMemoryBanks: 3\r\n"
      "[network_presets]\r\nTopologyCsvLoc = \"./topologies/x.csv\"\r\n"
      "[run_presets]\r\nInterfaceBandwidth = USER\r\nUseRamulatorTrace: False\r\n";
  const SystolicConfig c = parse_scalesim_cfg(text, "path/to/my_arch.cfg");
  CHECK(c.name == "my_arch");  // no run_name: the file stem
  CHECK(c.rows == 4);
  CHECK(c.cols == 8);
  CHECK(c.sram.ifmap_bytes == 1024);
  CHECK(c.sram.filter_bytes == 2048);
  CHECK(c.sram.ofmap_bytes == 3072);
  CHECK(c.dataflow == Dataflow::is);
  CHECK(c.dram.bytes_per_cycle == doctest::Approx(5.0));

  // CALC ignores Bandwidth entirely, as SCALE-Sim does.
  const SystolicConfig calc = parse_scalesim_cfg(
      "[architecture_presets]\nArrayHeight:2\nArrayWidth:2\nIfmapSramSzkB:1\nFilterSramSzkB:1\n"
      "OfmapSramSzkB:1\nDataflow:os\n[run_presets]\nInterfaceBandwidth: CALC\n",
      "c.cfg");
  CHECK(calc.dram.unlimited);
  CHECK(calc.dataflow == Dataflow::os);
  CHECK(parse_scalesim_cfg(kGoodCfg, "good.cfg").dataflow == Dataflow::os);
}

TEST_CASE("SCALE-Sim cfg: bad inputs name the file and the line or key") {
  const std::string good = kGoodCfg;
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    s.replace(at, from.size(), to);
    return s;
  };
  // Unknown key: names the line and lists the accepted keys.
  cfg_error(replace("Bandwidth: 10\n", "Bandwidth: 10\nClockGHz: 1\n"), "line 11, key 'ClockGHz'");
  cfg_error(replace("Bandwidth: 10\n", "Bandwidth: 10\nClockGHz: 1\n"), "ArrayHeight, ArrayWidth");
  // Unknown section.
  cfg_error(good + "[dram]\nlatency = 3\n", "line 13");
  cfg_error(good + "[dram]\nlatency = 3\n", "[architecture_presets]");
  // Bad dataflow.
  cfg_error(replace("Dataflow: os", "Dataflow: rs"), "line 9, key 'Dataflow'");
  // Missing required keys.
  cfg_error(replace("ArrayWidth: 8\n", ""), "[architecture_presets] ArrayWidth");
  cfg_error(replace("OfmapSramSzkB: 2\n", ""), "OfmapSramSzkB");
  cfg_error(replace("Dataflow: os\n", ""), "Dataflow");
  cfg_error(replace("InterfaceBandwidth: USER\n", ""), "[run_presets] InterfaceBandwidth");
  cfg_error(replace("Bandwidth: 10\n", ""), "[architecture_presets] Bandwidth");
  // Sizes must be positive integers.
  cfg_error(replace("ArrayHeight: 16", "ArrayHeight: 0"), "line 4, key 'ArrayHeight'");
  cfg_error(replace("ArrayHeight: 16", "ArrayHeight: -16"), "line 4, key 'ArrayHeight'");
  cfg_error(replace("IfmapSramSzkB: 4", "IfmapSramSzkB: 4.5"), "line 6, key 'IfmapSramSzkB'");
  cfg_error(replace("Bandwidth: 10", "Bandwidth: 10, x"), "line 10, key 'Bandwidth'");
  // Bad interface mode; malformed lines; keys outside a section; duplicates.
  cfg_error(replace("InterfaceBandwidth: USER", "InterfaceBandwidth: FAST"), "line 12, key 'InterfaceBandwidth'");
  cfg_error(replace("Dataflow: os", "Dataflow os"), "line 9");
  cfg_error("ArrayHeight: 4\n" + good, "line 1");
  cfg_error(replace("ArrayWidth: 8\n", "ArrayWidth: 8\narraywidth: 9\n"), "line 6, key 'arraywidth'");
  cfg_error(good + "[general]\n", "line 13");
  cfg_error(replace("[general]", "[general"), "line 1");
}

TEST_CASE("scalesim cfg: the same size limits as loom JSON architectures") {
  const std::string cfg =
      "[general]\nrun_name = big\n[architecture_presets]\nArrayHeight : 100000\nArrayWidth : 32\n"
      "IfmapSramSzkB : 64\nFilterSramSzkB : 64\nOfmapSramSzkB : 64\nDataflow : ws\n"
      "[run_presets]\nInterfaceBandwidth : CALC\n";
  try {
    loom::parse_scalesim_cfg(cfg, "big.cfg");
    FAIL("expected an InputError");
  } catch (const loom::InputError& e) {
    CHECK(std::string(e.what()).find("big.cfg") != std::string::npos);
    CHECK(std::string(e.what()).find("ArrayHeight") != std::string::npos);
    CHECK(std::string(e.what()).find("65536") != std::string::npos);
  }
}
