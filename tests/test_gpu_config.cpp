// GPU architecture files (arch/simt/gpu_config.h): every shipped "kind": "gpu" config loads
// and reproduces its datasheet peaks (computed here from the published formula, never read
// back from the loader); bad inputs fail with InputError naming the file, the JSON field and
// the rule.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/timing/occupancy.h"
#include "sim/error.h"
#include "sim/json_reader.h"

using namespace loom;
using namespace loom::simt;
namespace fs = std::filesystem;

namespace {

std::string source_path(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

GpuConfig shipped(const std::string& name) { return load_gpu_config(source_path("configs/" + name)); }

// The shipped V100 file, which tests mutate into bad inputs.
Json good() { return load_json_file(source_path("configs/v100.json")); }

GpuConfig parse(const Json& j) { return parse_gpu_config(j, "bad.json"); }

// Parsing `j` must fail naming bad.json, exactly `field`, and a message containing `rule`.
void expect_error(const Json& j, const std::string& field, const std::string& rule) {
  CAPTURE(field);
  try {
    parse(j);
    FAIL("accepted a bad config");
  } catch (const InputError& e) {
    CHECK(e.file() == "bad.json");
    CHECK(e.field() == field);
    CHECK_MESSAGE(std::string(e.what()).find(rule) != std::string::npos, std::string(e.what()));
  }
}

}  // namespace

TEST_CASE("gpu config: every shipped gpu config loads") {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(source_path("configs"))) {
    if (e.path().extension() != ".json") continue;
    const Json j = load_json_file(e.path().string());
    if (!j.is_object() || j.value("kind", "") != "gpu") continue;
    CAPTURE(e.path().string());
    const GpuConfig c = load_gpu_config(e.path().string());
    CHECK(c.source_file == e.path().string());
    CHECK(c.sources.is_object());
    CHECK(fs::exists(c.energy_table));
    names.push_back(c.name);
  }
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"A100-SXM4-40GB", "H200-SXM-141GB", "T4-16GB", "V100-SXM2-16GB"});
}

TEST_CASE("gpu config: V100 peaks, caches and DRAM match the datasheet") {
  const GpuConfig c = shipped("v100.json");
  // 80 SMs x 4 sub-cores x 2 tensor cores x 128 FLOP (4x4x4 FMA) x 1.53 GHz.
  CHECK(c.peak_tensor_flops(TensorPrecision::f16_f32) == doctest::Approx(80.0 * 4 * 2 * 128 * 1.53e9));
  CHECK(c.peak_tensor_flops(TensorPrecision::f16_f32) == doctest::Approx(125e12).epsilon(0.01));
  CHECK(c.peak_tensor_flops(TensorPrecision::f16_f16) == c.peak_tensor_flops(TensorPrecision::f16_f32));
  CHECK(c.peak_tensor_flops(TensorPrecision::tf32_f32) == 0);  // Volta: FP16 only
  CHECK(c.peak_tensor_flops(TensorPrecision::none) == 0);
  CHECK(c.peak_fp32_flops() == doctest::Approx(15.7e12).epsilon(0.01));
  CHECK(c.dram_bytes_per_cycle() == doctest::Approx(900e9 / 1.53e9));
  CHECK(c.l1.bytes == 32 * 1024);  // 128 KiB unified - 96 KiB shared
  CHECK(c.l2_bytes == 6 * 1024 * 1024);
  CHECK(c.warps_per_subcore_max() == 16);
  CHECK(c.l1.hit_latency == 28);
  CHECK(c.shared_latency == 19);
  CHECK(c.l2_hit_latency == 193);
  CHECK(c.scheduler == WarpSchedulerPolicy::gto);
  CHECK(c.dram_technology == "HBM2");
  CHECK(c.energy_technology_nm == 0);  // priced at technology_nm
}

TEST_CASE("gpu config: T4 tensor peaks are 65 TFLOP/s FP16 and 130 TOPS INT8") {
  const GpuConfig c = shipped("t4.json");
  CHECK(c.peak_tensor_flops(TensorPrecision::f16_f32) == doctest::Approx(40.0 * 4 * 2 * 128 * 1.59e9));
  CHECK(c.peak_tensor_flops(TensorPrecision::f16_f32) == doctest::Approx(65e12).epsilon(0.01));
  CHECK(c.peak_tensor_flops(TensorPrecision::s8_s32) == doctest::Approx(130e12).epsilon(0.01));
  CHECK(c.peak_tensor_flops(TensorPrecision::s4_s32) == doctest::Approx(260e12).epsilon(0.01));
  CHECK(c.peak_tensor_flops(TensorPrecision::b1_s32) == doctest::Approx(16 * 65.1e12).epsilon(0.01));
  CHECK(c.peak_fp32_flops() == doctest::Approx(8.1e12).epsilon(0.01));
  CHECK(c.dram_bytes_per_cycle() == doctest::Approx(320e9 / 1.59e9));
  CHECK(c.max_threads_per_sm == 1024);
  CHECK(c.max_shared_per_cta == 64 * 1024);
  CHECK(c.dram_technology == "GDDR6");
}

TEST_CASE("gpu config: A100 tensor peaks are 312 TFLOP/s FP16 and BF16, 156 TF32") {
  const GpuConfig c = shipped("a100.json");
  CHECK(c.peak_tensor_flops(TensorPrecision::f16_f32) == doctest::Approx(312e12).epsilon(0.01));
  CHECK(c.peak_tensor_flops(TensorPrecision::bf16_f32) == doctest::Approx(312e12).epsilon(0.01));
  CHECK(c.peak_tensor_flops(TensorPrecision::tf32_f32) == doctest::Approx(156e12).epsilon(0.01));
  CHECK(c.peak_tensor_flops(TensorPrecision::s8_s32) == doctest::Approx(624e12).epsilon(0.01));
  CHECK(c.peak_fp32_flops() == doctest::Approx(19.5e12).epsilon(0.01));
  CHECK(c.dram_bytes_per_cycle() == doctest::Approx(1555e9 / 1.41e9));
  CHECK(c.l2_bytes == int64_t(40) * 1024 * 1024);
  CHECK(c.l1.bytes == (192 - 164) * 1024);
}

TEST_CASE("gpu config: H200, calibrated to the measured device") {
  // configs/h200.json was calibrated against validate/data/h200-2026-11-27.json (the test in
  // test_validate.cpp checks the probes). What the calibration set, against the datasheet:
  const GpuConfig c = shipped("h200.json");
  CHECK(c.clock_hz == 1980e6);  // the clock the device held (its maximum boost)
  // Tensor cores at the rate loom's wmma / mma.sync reached: 6 per clock per sub-core, 803
  // TFLOP/s FP16, where the datasheet's 989 (rate 8 at 1.83 GHz) needs wgmma.
  CHECK(c.peak_tensor_flops(TensorPrecision::f16_f32) == doctest::Approx(132.0 * 4 * 128 * 6 * 1.98e9));
  CHECK(c.peak_tensor_flops(TensorPrecision::f16_f32) == doctest::Approx(0.81 * 989e12).epsilon(0.01));
  CHECK(c.peak_tensor_flops(TensorPrecision::bf16_f32) == c.peak_tensor_flops(TensorPrecision::f16_f32));
  CHECK(c.peak_tensor_flops(TensorPrecision::tf32_f32) == doctest::Approx(c.peak_tensor_flops(TensorPrecision::f16_f32) / 2));
  CHECK(c.peak_tensor_flops(TensorPrecision::s8_s32) == doctest::Approx(2 * c.peak_tensor_flops(TensorPrecision::f16_f32)));
  CHECK(c.peak_tensor_flops(TensorPrecision::s4_s32) == 0);  // INT4 MMA runs on IMAD on Hopper
  CHECK(c.peak_fp32_flops() == doctest::Approx(66.9e12).epsilon(0.01));  // the datasheet's, at 1.98 GHz
  CHECK(c.dram_bytes_per_cycle() == doctest::Approx(3.1e12 / 1.98e9));  // the measured triad's rate
  CHECK(c.l2_bytes == int64_t(60) * 1024 * 1024);  // the device's l2CacheSize
  CHECK(c.technology_nm == 4);
  CHECK(c.energy_technology_nm == 7);  // 4 nm is outside the scaling rule
}

TEST_CASE("gpu config: unknown keys are rejected at every level") {
  Json j = good();
  j["colck_hz"] = 1e9;
  expect_error(j, "colck_hz", "unknown key");
  j = good();
  j["units"]["fp32"]["lane"] = 16;
  expect_error(j, "units.fp32.lane", "unknown key");
  j = good();
  j["l1_shared"]["l1"]["ways"] = 4;
  expect_error(j, "l1_shared.l1.ways", "unknown key");
}

TEST_CASE("gpu config: missing required fields are named") {
  Json j = good();
  j.erase("sms");
  expect_error(j, "sms", "missing required field");
  j = good();
  j["l2"].erase("hit_latency");
  expect_error(j, "l2.hit_latency", "missing required field");
  j = good();
  j["tensor_core"]["rates"].erase("f16");
  expect_error(j, "tensor_core.rates.f16", "missing required field");
  j = good();
  j.erase("sources");
  expect_error(j, "sources", "missing required field");
}

TEST_CASE("gpu config: impossible values name the field and the rule") {
  Json j = good();
  j["sms"] = -80;
  expect_error(j, "sms", "expected a whole number from 1");
  j = good();
  j["l1_shared"]["shared_bytes"] = 200000;
  expect_error(j, "l1_shared.shared_bytes", "must be at most l1_shared.bytes");
  j = good();
  j["subcore"]["scheduler"] = "fifo";
  expect_error(j, "subcore.scheduler", "expected one of gto|lrr");
  j = good();
  j["l2"]["line_bytes"] = 96;
  expect_error(j, "l2.line_bytes", "power of two");
  j = good();
  j["subcore"]["register_banks"] = 3;
  expect_error(j, "subcore.register_banks", "power of two");
  j = good();
  j["l1_shared"]["shared_banks"] = 24;
  expect_error(j, "l1_shared.shared_banks", "power of two");
  j = good();
  j["l1_shared"]["l1"].erase("sets");
  j["l1_shared"]["l1"]["associativity"] = 3;  // 32 KiB is not a whole number of 384-byte sets
  expect_error(j, "l1_shared.l1.associativity", "whole number of sets");
  j = good();
  j["l1_shared"]["l1"]["sets"] = 3;  // 32 KiB is not a whole number of ways of 3 x 128 bytes
  expect_error(j, "l1_shared.l1.sets", "whole number of at most 65535 ways of line_bytes x sets = 384 bytes");
  j = good();
  j["l1_shared"]["l1"]["associativity"] = 64;  // with sets, the ways follow the size
  expect_error(j, "l1_shared.l1.sets", "not both");
  j = good();
  j["l1_shared"]["l1"].erase("sets");  // neither: the associativity is required
  expect_error(j, "l1_shared.l1.associativity", "required");
  j = good();
  j["l2"]["associativity"] = 65536;  // way numbers are 16-bit
  expect_error(j, "l2.associativity", "from 1 to 65535");
  j = good();
  j["occupancy"]["max_shared_per_cta"] = 100000;
  expect_error(j, "occupancy.max_shared_per_cta", "at most l1_shared.shared_bytes");
  j = good();
  j["units"]["sfu"]["lanes"] = 64;
  expect_error(j, "units.sfu.lanes", "from 1 to 32");
  j = good();
  j["warp_size"] = 64;
  expect_error(j, "warp_size", "from 32 to 32");
  j = good();
  j["kind"] = "hierarchy";
  expect_error(j, "kind", "expected one of gpu");
  j = good();
  j["occupancy"]["max_warps_per_sm"] = 30;  // 30 warps cannot hold 2048 threads
  expect_error(j, "occupancy.max_threads_per_sm", "at most max_warps_per_sm x warp_size");
}

TEST_CASE("gpu config: shared-memory carve-outs are ascending, end at shared_bytes and leave whole L1 sets") {
  const GpuConfig v100 = shipped("v100.json");
  CHECK(v100.shared_carveouts == std::vector<int64_t>{0, 8192, 16384, 32768, 65536, 98304});
  CHECK(v100.shared_reserved_per_cta == 0);
  const GpuConfig h200 = shipped("h200.json");
  CHECK(h200.shared_carveouts.size() == 10);
  CHECK(h200.shared_carveouts.back() == h200.shared_bytes);
  CHECK(h200.shared_reserved_per_cta == 1024);
  CHECK(h200.max_shared_per_cta + h200.shared_reserved_per_cta == h200.shared_bytes);  // 227 + 1 = 228 KiB
  CHECK(shipped("t4.json").shared_carveouts == std::vector<int64_t>{32768, 65536});

  Json j = good();
  j["l1_shared"]["carveouts"] = Json::array({0, 16384, 8192, 98304});
  expect_error(j, "l1_shared.carveouts[2]", "ascending");
  j["l1_shared"]["carveouts"] = Json::array({0, 8192, 65536});
  expect_error(j, "l1_shared.carveouts", "the last is 65536");
  j["l1_shared"]["carveouts"] = Json::array({0, 131072});
  expect_error(j, "l1_shared.carveouts[1]", "from 0 to shared_bytes, the last equal to shared_bytes (98304); found 131072");
  j["l1_shared"]["carveouts"] = Json::array({0, "8 KiB", 98304});
  expect_error(j, "l1_shared.carveouts[1]", "found \"8 KiB\"");
  j["l1_shared"]["carveouts"] = Json::array({0.0, 8192.0, 98304.0});  // whole numbers may be written 2.0
  CHECK(parse(j).shared_carveouts == std::vector<int64_t>{0, 8192, 98304});
  j["l1_shared"]["carveouts"] = Json::array({0, 8192.5, 98304});
  expect_error(j, "l1_shared.carveouts[1]", "found 8192.5");
  j["l1_shared"]["carveouts"] = Json::array();
  expect_error(j, "l1_shared.carveouts", "ascending array");
  j["l1_shared"]["carveouts"] = Json::array({256, 98304});  // 127.75 KiB of L1 is not whole ways of 4 x 128 bytes
  expect_error(j, "l1_shared.l1.sets", "carve-out 256");
  j["l1_shared"]["l1"].erase("sets");
  j["l1_shared"]["l1"]["associativity"] = 64;
  j["l1_shared"]["carveouts"] = Json::array({4096, 98304});  // 124 KiB of L1 is not whole 8 KiB sets
  expect_error(j, "l1_shared.l1.associativity", "carve-out 4096");
  j = good();
  j["l1_shared"]["shared_reserved_per_cta"] = 1024;  // 96 KiB per CTA plus the reserve no longer fits
  expect_error(j, "occupancy.max_shared_per_cta", "less l1_shared.shared_reserved_per_cta (1024)");
}

TEST_CASE("gpu config: an L1 of fixed sets takes its ways from each launch's carve-out") {
  // The V100 and the T4 keep Accel-Sim's 4 sets, whose ways follow the L1's share of the
  // unified array (configs/v100.json, l1_shared.l1.sets).
  const GpuConfig v100 = shipped("v100.json");
  CHECK(v100.l1.sets == 4);
  CHECK(v100.l1.associativity == 64);  // the 32 KiB L1 of the largest carve-out
  Occupancy o;
  o.l1_bytes = 131072;  // no shared memory: all 128 KiB
  CHECK(config_for_launch(v100, o).l1.associativity == 256);
  o.l1_bytes = 131072 - 16384;
  CHECK(config_for_launch(v100, o).l1.associativity == 224);
  const GpuConfig t4 = shipped("t4.json");
  CHECK(t4.l1.sets == 4);
  o.l1_bytes = 98304 - 32768;
  CHECK(config_for_launch(t4, o).l1.associativity == 128);
  // A config with a fixed associativity keeps it at every size.
  const GpuConfig a100 = shipped("a100.json");
  CHECK(a100.l1.sets == 0);
  o.l1_bytes = 196608 - 8192;
  CHECK(config_for_launch(a100, o).l1.associativity == a100.l1.associativity);
  // The resolved config writes the sets back, not the ways of one size (it reloads to the
  // same config: "every shipped gpu config loads back", below).
  const Json resolved = gpu_config_to_json(v100);
  CHECK(resolved["l1_shared"]["l1"]["sets"] == 4);
  CHECK(!resolved["l1_shared"]["l1"].contains("associativity"));
}

TEST_CASE("gpu config: a node outside the scaling rule needs energy.technology_nm") {
  Json j = good();
  j["technology_nm"] = 4;
  expect_error(j, "technology_nm", "covers 7 to 130 nm");
  j["energy"]["technology_nm"] = 5;
  expect_error(j, "energy.technology_nm", "covers 7 to 130 nm");
  j["energy"]["technology_nm"] = 7;
  CHECK(parse(j).energy_technology_nm == 7);
}

TEST_CASE("gpu config: load errors name the file on disk") {
  const fs::path dir = fs::temp_directory_path() / "loom_gpu_config_test";
  fs::create_directories(dir);
  const std::string path = (dir / "typo.json").string();
  Json j = good();
  j["l2"]["slice"] = 64;
  std::ofstream(path) << j.dump(2);
  try {
    load_gpu_config(path);
    FAIL("accepted a bad config");
  } catch (const InputError& e) {
    CHECK(e.file() == path);
    CHECK(e.field() == "l2.slice");
  }
  fs::remove_all(dir);
}

TEST_CASE("gpu config: the resolved config reloads to the same config") {
  for (const char* name : {"v100", "t4", "a100", "h200"}) {
    const std::string path = std::string(LOOM_SOURCE_DIR) + "/configs/" + name + ".json";
    const loom::simt::GpuConfig original = loom::simt::load_gpu_config(path);
    const nlohmann::json resolved = loom::simt::gpu_config_to_json(original);
    const loom::simt::GpuConfig again = loom::simt::parse_gpu_config(resolved, path);
    CHECK(loom::simt::gpu_config_to_json(again) == resolved);
    CHECK(again.shared_carveouts == original.shared_carveouts);
    CHECK(again.shared_reserved_per_cta == original.shared_reserved_per_cta);
    CHECK(again.peak_tensor_flops(loom::simt::TensorPrecision::f16_f32) ==
          original.peak_tensor_flops(loom::simt::TensorPrecision::f16_f32));
  }
}
