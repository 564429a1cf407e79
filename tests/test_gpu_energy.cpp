// SIMT energy (arch/simt/gpu_energy.h): the shipped table carries its cited figures; a
// hand-built GpuStats is priced to a hand-computed total; technology scaling moves on-chip
// energies by the rule's factor and leaves DRAM alone; an HMMA amortises the instruction
// overhead that dominates an HFMA (the talk's point); bad tables name their field.
#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_energy.h"
#include "sim/energy_table.h"
#include "sim/error.h"
#include "sim/json_reader.h"

using namespace loom;
using namespace loom::simt;

namespace {

std::string source_path(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

GpuConfig v100() { return load_gpu_config(source_path("configs/v100.json")); }

SimtEnergyTable shipped_table() { return load_simt_energy_table(source_path("configs/energy/simt_volta_talk_45nm.json")); }

TechnologyScaling rule() { return TechnologyScaling::load(TechnologyScaling::default_path()); }

// A table of round numbers at 45 nm, so prices can be computed by hand.
const char* kRound = R"({
  "schema": "loom-simt-energy/1", "name": "round", "technology_nm": 45, "sources": {},
  "instruction_overhead": {"pj": 10, "sources": []},
  "operations": {"int": {"pj": 1, "sources": []}, "fp32": {"pj": 2, "sources": []},
                 "fp16": {"pj": 3, "sources": []}, "fp64": {"pj": 4, "sources": []},
                 "sfu": {"pj": 5, "sources": []}},
  "tensor": {"pj": 64, "fmas": 64, "sources": []},
  "memory": {"shared": {"pj": 4, "bytes": 4, "sources": []},
             "l1": {"pj": 32, "bytes": 32, "sources": []},
             "l2": {"pj": 64, "bytes": 32, "sources": []}},
  "dram_pj_per_bit": {"HBM2": {"pj": 1, "source": "round"}},
  "static_w_per_sm": {"w": 0.5, "source": "round"}
})";

void set_lanes(GpuStats& s, EnergyClass k, int64_t n) { s.thread_instructions_by_class[size_t(k)] = n; }

GpuStats hand_built_launch() {
  GpuStats s;
  s.cycles = 1530;  // 1 microsecond at the V100's 1.53 GHz
  set_lanes(s, EnergyClass::int_op, 100);
  set_lanes(s, EnergyClass::fp32_op, 200);
  set_lanes(s, EnergyClass::fp16_op, 300);
  set_lanes(s, EnergyClass::fp64_op, 10);
  set_lanes(s, EnergyClass::sfu_op, 20);
  set_lanes(s, EnergyClass::load_global, 30);
  set_lanes(s, EnergyClass::store_global, 5);
  set_lanes(s, EnergyClass::load_shared, 40);
  set_lanes(s, EnergyClass::store_shared, 8);
  set_lanes(s, EnergyClass::load_other, 2);
  set_lanes(s, EnergyClass::tensor_mma, 32);
  set_lanes(s, EnergyClass::control, 50);
  s.thread_instructions = 797;
  s.tensor_mma_instructions = 1;
  s.tensor_core_ops = 64;  // one 16x16x16 warp MMA
  s.shared_requests = 40;
  s.shared_wavefronts = 48;
  s.l1_sector_accesses = 120;
  s.l2_sector_accesses = 70;
  s.dram_read_bytes = 2048;
  s.dram_write_bytes = 1024;
  return s;
}

}  // namespace

TEST_CASE("gpu energy: the shipped SIMT table carries the talk's figures at 45 nm") {
  const SimtEnergyTable t = shipped_table();
  CHECK(t.name == "simt_volta_talk_45nm");
  CHECK(t.technology_nm == 45);
  CHECK(t.instruction_overhead_pj == 30);
  CHECK(t.fp16_pj == 1.5);
  CHECK(t.tensor_pj == 110);
  CHECK(t.tensor_fmas == 64);
  CHECK(t.fp32_pj == doctest::Approx(3.7 + 0.9));  // Horowitz fp32 multiply + add
  CHECK(t.l1_pj_per_byte == doctest::Approx(80.0 / 32));
  CHECK(t.dram_pj_per_byte("HBM2") == doctest::Approx(3.9 * 8));
  CHECK(t.static_w_per_sm == 0);
}

TEST_CASE("gpu energy: a hand-built launch is priced by the documented rule") {
  GpuConfig c = v100();
  c.technology_nm = 45;  // the table's own node: scaling factor 1
  const GpuEnergy e = price_gpu_energy(hand_built_launch(), c, parse_simt_energy_table(Json::parse(kRound), "round.json"));
  CHECK(e.scale_factor == doctest::Approx(1));
  // 797 thread instructions of every class x 10 pJ.
  CHECK(e.instruction_overhead_pj == doctest::Approx(7970));
  CHECK(e.int_pj == doctest::Approx(100));
  CHECK(e.fp32_pj == doctest::Approx(400));
  CHECK(e.fp16_pj == doctest::Approx(900));
  CHECK(e.fp64_pj == doctest::Approx(40));
  CHECK(e.sfu_pj == doctest::Approx(100));
  CHECK(e.tensor_pj == doctest::Approx(4096));      // 64 ops x 64 FMAs x 1 pJ
  CHECK(e.shared_pj == doctest::Approx(6144));      // 48 wavefronts x 32 banks x 4 B x 1 pJ/B
  CHECK(e.l1_pj == doctest::Approx(3840));          // 120 sectors x 32 B x 1 pJ/B
  CHECK(e.l2_pj == doctest::Approx(4480));          // 70 sectors x 32 B x 2 pJ/B
  CHECK(e.dram_pj == doctest::Approx(24576));       // 3072 B x 8 bits x 1 pJ
  CHECK(e.static_pj == doctest::Approx(40e6));      // 0.5 W x 80 SMs x 1 us
  CHECK(e.total_pj == doctest::Approx(40052646));

  const Json j = e.to_json();
  CHECK(j["table"] == "round");
  CHECK(j["total_pj"].get<double>() == doctest::Approx(40052646));
  double sum = 0;
  for (const auto& [key, pj] : j["breakdown_pj"].items()) sum += pj.get<double>();
  CHECK(sum == doctest::Approx(e.total_pj));
  CHECK(j["breakdown_pj"].size() == 12);
}

TEST_CASE("gpu energy: scaling to 12 nm reduces on-chip energies by the rule's factor, not DRAM") {
  GpuConfig at45 = v100();
  at45.technology_nm = 45;
  const GpuConfig at12 = v100();  // 12 nm
  const GpuStats s = hand_built_launch();
  const SimtEnergyTable t = shipped_table();
  const GpuEnergy a = price_gpu_energy(s, at45, t);
  const GpuEnergy b = price_gpu_energy(s, at12, t);
  const double f = rule().factor(45, 12);
  CHECK(f == doctest::Approx(0.128).epsilon(0.01));  // docs/energy-tables.md, technology scaling
  CHECK(b.scale_factor == doctest::Approx(f));
  CHECK(b.technology_nm == 12);
  for (auto [x, y] : std::initializer_list<std::pair<double, double>>{{a.instruction_overhead_pj, b.instruction_overhead_pj}, {a.int_pj, b.int_pj},
                      {a.fp32_pj, b.fp32_pj}, {a.fp16_pj, b.fp16_pj}, {a.fp64_pj, b.fp64_pj}, {a.sfu_pj, b.sfu_pj},
                      {a.tensor_pj, b.tensor_pj}, {a.shared_pj, b.shared_pj}, {a.l1_pj, b.l1_pj}, {a.l2_pj, b.l2_pj}}) {
    CHECK(x > 0);
    CHECK(y == doctest::Approx(x * f));
  }
  CHECK(a.dram_pj == doctest::Approx(3072 * 8 * 3.9));
  CHECK(b.dram_pj == a.dram_pj);
}

TEST_CASE("gpu energy: an HMMA's energy per FMA is far below an HFMA's plus its overhead") {
  const GpuConfig c = v100();
  const SimtEnergyTable t = shipped_table();
  GpuStats hfma;  // one thread's HFMA: one FMA
  set_lanes(hfma, EnergyClass::fp16_op, 1);
  GpuStats hmma;  // one warp's 16x16x16 MMA: 32 thread instructions, 4096 FMAs
  set_lanes(hmma, EnergyClass::tensor_mma, 32);
  hmma.tensor_core_ops = 64;
  const double per_fma_hfma = price_gpu_energy(hfma, c, t).total_pj;
  const double per_fma_hmma = price_gpu_energy(hmma, c, t).total_pj / 4096;
  // At 45 nm: (30 + 1.5) = 31.5 pJ against (32 x 30 + 4096 x 110/64) / 4096 = 1.95 pJ.
  CHECK(per_fma_hmma * 10 < per_fma_hfma);
  CHECK(per_fma_hfma / per_fma_hmma == doctest::Approx(31.5 / ((32 * 30 + 4096 * 110.0 / 64) / 4096)));
}

TEST_CASE("gpu energy: every shipped gpu config prices with its own table") {
  for (const char* name : {"v100.json", "t4.json", "a100.json", "h200.json"}) {
    CAPTURE(name);
    const GpuConfig c = load_gpu_config(source_path(std::string("configs/") + name));
    const GpuEnergy e = price_gpu_energy(hand_built_launch(), c, load_simt_energy_table(c.energy_table));
    CHECK(e.total_pj > 0);
    CHECK(e.technology_nm == (c.energy_technology_nm > 0 ? c.energy_technology_nm : c.technology_nm));
  }
}

TEST_CASE("gpu energy: a DRAM technology missing from the table names the table and field") {
  GpuConfig c = v100();
  c.dram_technology = "LPDDR5";
  try {
    price_gpu_energy(hand_built_launch(), c, shipped_table());
    FAIL("priced an unknown DRAM technology");
  } catch (const InputError& e) {
    CHECK(e.field() == "dram_pj_per_bit.LPDDR5");
    CHECK(e.file() == source_path("configs/energy/simt_volta_talk_45nm.json"));
  }
}

TEST_CASE("gpu energy: bad tables are rejected naming the field") {
  auto expect_error = [](const Json& j, const std::string& field) {
    CAPTURE(field);
    try {
      parse_simt_energy_table(j, "t.json");
      FAIL("accepted a bad table");
    } catch (const InputError& e) {
      CHECK(e.file() == "t.json");
      CHECK(e.field() == field);
    }
  };
  Json j = Json::parse(kRound);
  j["operations"]["fp8"] = {{"pj", 1}, {"sources", Json::array()}};
  expect_error(j, "operations.fp8");
  j = Json::parse(kRound);
  j["operations"]["fp32"]["pj"] = -2;
  expect_error(j, "operations.fp32.pj");
  j = Json::parse(kRound);
  j["tensor"].erase("fmas");
  expect_error(j, "tensor.fmas");
  j = Json::parse(kRound);
  j["memory"]["l2"]["bytes"] = 0;
  expect_error(j, "memory.l2.bytes");
  j = Json::parse(kRound);
  j["schema"] = "loom-energy/1";
  expect_error(j, "schema");
}
