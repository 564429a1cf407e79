// Area model (arch/area_model.h): the shipped table holds the published figures it cites;
// components sum to the total and follow their formulas (PE array linear in PEs, SRAM
// linear in bytes, quadratic node scaling); every shipped config gets an area; the GPU
// configs and the TPU-v1-like config land within the documented factors of their
// published dies; malformed tables name file and field.
//
// LOOM_PRINT_AREA=1 loom_tests -tc='area: *' prints the tables of docs/area-model.md.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "arch/architecture.h"
#include "arch/area_model.h"
#include "sim/error.h"
#include "sim/json_reader.h"

using namespace loom;
namespace fs = std::filesystem;

namespace {

std::string source_path(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

Architecture shipped(const std::string& name) { return load_architecture(source_path("configs/" + name)); }

double component(const AreaBreakdown& a, const std::string& name) {
  for (const auto& [n, mm2] : a.components_mm2) {
    if (n == name) return mm2;
  }
  FAIL("no component " << name);
  return 0;
}

double sum_of(const AreaBreakdown& a) {
  double s = 0;
  for (const auto& [n, mm2] : a.components_mm2) s += mm2;
  return s;
}

// Aladdin's 40 nm figures (1 ns) moved to 45 nm: the table's derivation, recomputed.
constexpr double k40to45 = (45.0 / 40.0) * (45.0 / 40.0);
constexpr double kIntMul32 = 6350 * k40to45, kIntAdd32 = 278 * k40to45, kRegBit = 5.98 * k40to45;
constexpr double kFp32Mul = 4360 * k40to45, kFp32Add = 4360 * k40to45;
constexpr double kFp64Mul = 8970 * k40to45, kFp64Add = 9880 * k40to45;
constexpr double kSramBitUm2 = 0.346 / 0.5;

bool print_tables() { return std::getenv("LOOM_PRINT_AREA") != nullptr; }

// The GPU's area with the full die's SMs instead of the config's enabled ones: every
// component but the L2 (and the uncore share, recomputed) is per SM.
double full_die_mm2(const AreaBreakdown& a, const AreaTable& t, int sms, int sms_on_die) {
  double rest = 0;
  for (const auto& [n, mm2] : a.components_mm2) {
    if (n == "uncore") continue;
    rest += n == "l2" ? mm2 : mm2 * sms_on_die / sms;
  }
  return rest / (1 - t.gpu_uncore_fraction);
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

}  // namespace

TEST_CASE("area: the shipped table holds the cited figures, embedded and on disk alike") {
  const AreaTable& t = default_area_table();
  CHECK(t.name == "area_45nm");
  CHECK(t.file == "<embedded>:default_area");
  CHECK(t.technology_nm == 45);
  CHECK(t.int_multiplier.um2 == doctest::Approx(kIntMul32).epsilon(1e-12));
  CHECK(t.int_multiplier.bits == 32);
  CHECK(t.int_multiplier.scaling == AreaLogic::Scaling::quadratic);
  CHECK(t.int_adder.um2 == doctest::Approx(kIntAdd32).epsilon(1e-12));
  CHECK(t.int_adder.scaling == AreaLogic::Scaling::linear);
  CHECK(t.register_bit.um2 == doctest::Approx(kRegBit).epsilon(1e-12));
  CHECK(t.register_bit.bits == 1);
  CHECK(t.fp_multiplier.um2 == doctest::Approx(kFp32Mul).epsilon(1e-12));
  CHECK(t.fp_multiplier.bits == 24);
  CHECK(t.fp_adder.um2 == doctest::Approx(kFp32Add).epsilon(1e-12));
  CHECK(t.fp64_multiplier.um2 == doctest::Approx(kFp64Mul).epsilon(1e-12));
  CHECK(t.fp64_adder.um2 == doctest::Approx(kFp64Add).epsilon(1e-12));
  CHECK(t.sfu.um2 == doctest::Approx(2 * (kFp32Mul + kFp32Add)).epsilon(1e-12));
  CHECK(t.sram_bit_cell_um2 == 0.346);
  CHECK(t.sram_um2_per_bit() == doctest::Approx(kSramBitUm2));
  CHECK(t.accelerator_control_fraction == 0.02);
  CHECK(t.gpu_uncore_fraction == 0);
  CHECK(t.reference_dies.size() == 5);

  const AreaTable disk = load_area_table(source_path("configs/area/area_45nm.json"));
  CHECK(disk.int_multiplier.um2 == t.int_multiplier.um2);
  CHECK(disk.sram_array_efficiency == t.sram_array_efficiency);
  CHECK(disk.reference_dies.size() == t.reference_dies.size());
  CHECK(&default_area_table() == &t);  // parsed once
}

TEST_CASE("area: a systolic array is its PEs, its three buffers and control, by hand") {
  const Architecture a = shipped("systolic_128x128_ws.json");  // int8 8/8/32, 1024/1024/512 KiB
  const AreaBreakdown area = area_of(a);
  CHECK(area.table == "area_45nm");
  CHECK(area.technology_nm == 45);  // the Horowitz energy table's node
  REQUIRE(area.components_mm2.size() == 5);
  CHECK(area.components_mm2[0].first == "pe_array");
  CHECK(area.components_mm2[1].first == "sram_ifmap");
  CHECK(area.components_mm2[2].first == "sram_filter");
  CHECK(area.components_mm2[3].first == "sram_ofmap");
  CHECK(area.components_mm2[4].first == "control");

  const double pe_um2 = kIntMul32 * (8.0 / 32) * (8.0 / 32) + kIntAdd32 + 48 * kRegBit;
  CHECK(pe_um2 == doctest::Approx(1217.4237).epsilon(1e-7));
  CHECK(component(area, "pe_array") == doctest::Approx(pe_um2 * 128 * 128 * 1e-6).epsilon(1e-12));
  CHECK(component(area, "sram_ifmap") == doctest::Approx(1024.0 * 1024 * 8 * kSramBitUm2 * 1e-6).epsilon(1e-12));
  CHECK(component(area, "sram_filter") == doctest::Approx(component(area, "sram_ifmap")).epsilon(1e-12));
  CHECK(component(area, "sram_ofmap") == doctest::Approx(512.0 * 1024 * 8 * kSramBitUm2 * 1e-6).epsilon(1e-12));
  const double datapath_and_sram = sum_of(area) - component(area, "control");
  CHECK(component(area, "control") == doctest::Approx(datapath_and_sram * 0.02 / 0.98).epsilon(1e-12));
  CHECK(component(area, "control") / area.total_mm2() == doctest::Approx(0.02).epsilon(1e-12));
  CHECK(area.total_mm2() == doctest::Approx(sum_of(area)).epsilon(1e-15));
}

TEST_CASE("area: doubling rows x cols doubles the PE array exactly; SRAM is linear in bytes") {
  const Architecture base = shipped("systolic_32x32_ws.json");
  SystolicConfig s = base.systolic();
  const AreaBreakdown a1 = area_of(base);

  SystolicConfig rows2 = s;
  rows2.rows *= 2;
  CHECK(component(area_of(Architecture{rows2}), "pe_array") == 2 * component(a1, "pe_array"));
  SystolicConfig cols2 = s;
  cols2.cols *= 2;
  CHECK(component(area_of(Architecture{cols2}), "pe_array") == 2 * component(a1, "pe_array"));
  // Buffers do not move with the array.
  CHECK(component(area_of(Architecture{rows2}), "sram_ifmap") == component(a1, "sram_ifmap"));

  for (int k : {2, 3, 10}) {
    SystolicConfig big = s;
    big.sram.ifmap_bytes *= k;
    big.sram.ofmap_bytes *= k;
    const AreaBreakdown ak = area_of(Architecture{big});
    CHECK(component(ak, "sram_ifmap") == doctest::Approx(k * component(a1, "sram_ifmap")).epsilon(1e-12));
    CHECK(component(ak, "sram_ofmap") == doctest::Approx(k * component(a1, "sram_ofmap")).epsilon(1e-12));
    CHECK(component(ak, "sram_filter") == component(a1, "sram_filter"));
    CHECK(component(ak, "pe_array") == component(a1, "pe_array"));
  }
  // Double buffering is already inside the byte count: the flag changes nothing.
  SystolicConfig single = s;
  single.sram.double_buffered = !s.sram.double_buffered;
  CHECK(area_of(Architecture{single}).total_mm2() == a1.total_mm2());
}

TEST_CASE("area: swapping two buffers' sizes gives the very same total, to the last bit") {
  // A sweep's Pareto front compares areas exactly: 64x16 OS with 256 KiB ifmap / 64 KiB
  // filter and the same array with the sizes swapped once differed in the last bit, which
  // kept a dominated design on the front (total_mm2 now sums independently of order).
  SystolicConfig a = shipped("systolic_32x32_ws.json").systolic();
  a.rows = 64;
  a.cols = 16;
  a.sram.ifmap_bytes = 256 * 1024;
  a.sram.filter_bytes = 64 * 1024;
  SystolicConfig b = a;
  std::swap(b.sram.ifmap_bytes, b.sram.filter_bytes);
  const AreaBreakdown area_a = area_of(Architecture{a}), area_b = area_of(Architecture{b});
  CHECK(component(area_a, "sram_ifmap") == component(area_b, "sram_filter"));
  CHECK(area_a.total_mm2() == area_b.total_mm2());
}

TEST_CASE("area: technology scaling is quadratic in the node") {
  // A GPU is given at its technology_nm.
  const Architecture v100 = shipped("v100.json");
  simt::GpuConfig g = v100.gpu();
  const AreaBreakdown at12 = area_of(v100);
  CHECK(at12.technology_nm == 12);
  g.technology_nm = 24;
  const AreaBreakdown at24 = area_of(Architecture{g});
  CHECK(at24.technology_nm == 24);
  CHECK(at24.total_mm2() == doctest::Approx(4 * at12.total_mm2()).epsilon(1e-12));
  g.technology_nm = 45;
  CHECK(area_of(Architecture{g}).total_mm2() ==
        doctest::Approx(at12.total_mm2() * (45.0 / 12) * (45.0 / 12)).epsilon(1e-12));

  // scale_area moves every component by (to / from)^2.
  const AreaBreakdown moved = scale_area(at12, 6);
  CHECK(moved.technology_nm == 6);
  for (size_t i = 0; i < moved.components_mm2.size(); ++i) {
    CHECK(moved.components_mm2[i].second == doctest::Approx(at12.components_mm2[i].second / 4).epsilon(1e-12));
  }
  CHECK(default_area_table().scale_to(90) == 4);

  // A hierarchy is given at its scaled energy table's node, else at the table file's node.
  const Architecture simba = shipped("simba_like.json");  // horowitz_45nm scaled to 16 nm
  const AreaBreakdown a16 = area_of(simba);
  CHECK(a16.technology_nm == 16);
  HierarchyConfig unscaled = simba.hierarchy();
  unscaled.energy_technology_nm = 0;
  const AreaBreakdown a45 = area_of(Architecture{unscaled});
  CHECK(a45.technology_nm == 45);
  CHECK(a16.total_mm2() == doctest::Approx(a45.total_mm2() * (16.0 / 45) * (16.0 / 45)).epsilon(1e-12));
  // A config with no energy table is given at the area table's node.
  unscaled.energy_table.clear();
  CHECK(area_of(Architecture{unscaled}).technology_nm == 45);
}

TEST_CASE("area: narrower data types make smaller PEs") {
  const Architecture base = shipped("systolic_32x32_ws.json");
  auto pe_mm2 = [&](DataType t, int in_bits, int out_bits) {
    SystolicConfig s = base.systolic();
    s.data_type = t;
    s.ifmap_bits = s.filter_bits = in_bits;
    s.ofmap_bits = out_bits;
    return component(area_of(Architecture{s}), "pe_array");
  };
  const double fp32 = pe_mm2(DataType::fp32, 32, 32);
  const double fp16 = pe_mm2(DataType::fp16, 16, 32);
  const double int16 = pe_mm2(DataType::int16, 16, 32);
  const double int8 = pe_mm2(DataType::int8, 8, 32);
  const double int4 = pe_mm2(DataType::int4, 4, 32);
  CHECK(int8 < fp32);
  CHECK(fp16 < fp32);
  CHECK(int8 < int16);
  CHECK(int4 < int8);
  // By hand, per PE: fp32 = fp32 multiplier + fp32 adder + 96 register bits.
  CHECK(fp32 == doctest::Approx((kFp32Mul + kFp32Add + 96 * kRegBit) * 1024 * 1e-6).epsilon(1e-12));
  CHECK(fp16 == doctest::Approx((kFp32Mul * (11.0 / 24) * (11.0 / 24) + kFp32Add + 64 * kRegBit) * 1024 * 1e-6)
                    .epsilon(1e-12));
  CHECK(int8 / fp32 == doctest::Approx(1217.4237 / (kFp32Mul + kFp32Add + 96 * kRegBit)).epsilon(1e-6));
}

TEST_CASE("area: a hierarchy is its MACs plus every on-chip level x its instances") {
  const Architecture eyeriss = shipped("eyeriss_like_rs.json");  // relative table, 65 nm
  const AreaBreakdown a = area_of(eyeriss);
  CHECK(a.technology_nm == 65);
  const double s = (65.0 / 45) * (65.0 / 45);
  REQUIRE(a.components_mm2.size() == 4);  // pe_array, sram_GLB, regfile_RF, control: no DRAM
  // 168 int16 MACs with 16-bit accumulators (the config's output word).
  CHECK(component(a, "pe_array") ==
        doctest::Approx(168 * (kIntMul32 / 4 + kIntAdd32 / 2) * 1e-6 * s).epsilon(1e-12));
  CHECK(component(a, "sram_GLB") == doctest::Approx(110592.0 * 8 * kSramBitUm2 * 1e-6 * s).epsilon(1e-12));
  // One RF (448 + 24 + 48 bytes) per PE: 14 x 12 instances.
  CHECK(component(a, "regfile_RF") == doctest::Approx(168 * 520.0 * 8 * kSramBitUm2 * 1e-6 * s).epsilon(1e-12));
  CHECK(component(a, "control") / a.total_mm2() == doctest::Approx(0.02));
}

TEST_CASE("area: a GPU is its SMs' lanes, tensor cores and memories plus the L2, by hand") {
  const Architecture v100 = shipped("v100.json");
  const AreaBreakdown a = area_of(v100);
  const double s = (12.0 / 45) * (12.0 / 45) * 1e-6 * 80;  // per SM um2 -> whole GPU mm2 at 12 nm
  CHECK(component(a, "fp32_lanes") == doctest::Approx(64 * (kFp32Mul + kFp32Add) * s).epsilon(1e-12));
  CHECK(component(a, "int_lanes") == doctest::Approx(64 * (kIntMul32 + kIntAdd32) * s).epsilon(1e-12));
  const double fp16_fma = kFp32Mul * (11.0 / 24) * (11.0 / 24) + kFp32Add / 2;
  CHECK(component(a, "fp16_lanes") == doctest::Approx(64 * fp16_fma * s).epsilon(1e-12));
  CHECK(component(a, "fp64_lanes") == doctest::Approx(32 * (kFp64Mul + kFp64Add) * s).epsilon(1e-12));
  CHECK(component(a, "sfu") == doctest::Approx(16 * 2 * (kFp32Mul + kFp32Add) * s).epsilon(1e-12));
  CHECK(component(a, "tensor_cores") == doctest::Approx(8 * 64 * fp16_fma * s).epsilon(1e-12));
  CHECK(component(a, "register_file") == doctest::Approx(65536.0 * 32 * kSramBitUm2 * s).epsilon(1e-12));
  CHECK(component(a, "l1_shared") == doctest::Approx(131072.0 * 8 * kSramBitUm2 * s).epsilon(1e-12));
  CHECK(component(a, "l2") == doctest::Approx(6291456.0 * 8 * kSramBitUm2 * s / 80).epsilon(1e-12));
  CHECK(a.components_mm2.size() == 9);  // no uncore share in the shipped table

  // The T4's FP64 is 1 lane per sub-core at interval 2: 2 lanes per SM.
  const AreaBreakdown t4 = area_of(shipped("t4.json"));
  CHECK(component(t4, "fp64_lanes") == doctest::Approx(2 * (kFp64Mul + kFp64Add) * s / 80 * 40).epsilon(1e-12));
  // An A100 tensor core does 4 of the 4x4x4 operations per clock: 256 FMAs.
  const AreaBreakdown a100 = area_of(shipped("a100.json"));
  const double s7 = (7.0 / 45) * (7.0 / 45) * 1e-6 * 108;
  CHECK(component(a100, "tensor_cores") == doctest::Approx(4 * 256 * fp16_fma * s7).epsilon(1e-12));

  // An uncore share, when a table gives one, is that fraction of the total.
  AreaTable t = default_area_table();
  t.gpu_uncore_fraction = 0.25;
  const AreaBreakdown u = area_of(v100, t);
  CHECK(component(u, "uncore") / u.total_mm2() == doctest::Approx(0.25));
  CHECK(u.total_mm2() == doctest::Approx(a.total_mm2() / 0.75));
}

TEST_CASE("area: every shipped config gets a positive, finite area") {
  int seen = 0;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(source_path("configs"))) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  for (const auto& e : fs::directory_iterator(source_path("configs/scalesim"))) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (print_tables()) std::printf("| Config | Node | Total (mm²) | Components (mm²) |\n|---|---|---|---|\n");
  for (const fs::path& f : files) {
    CAPTURE(f.string());
    const AreaBreakdown a = area_of(load_architecture(f.string()));
    if (print_tables()) {
      std::string parts;
      for (const auto& [name, mm2] : a.components_mm2) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s%s %.3g", parts.empty() ? "" : ", ", name.c_str(), mm2);
        parts += buf;
      }
      std::printf("| `%s` | %g nm | %.3g | %s |\n", f.filename().c_str(), a.technology_nm, a.total_mm2(), parts.c_str());
    }
    CHECK(std::isfinite(a.total_mm2()));
    CHECK(a.total_mm2() > 0);
    CHECK(a.technology_nm > 0);
    for (const auto& component : a.components_mm2) {
      const std::string& name = component.first;  // a named reference: clang 14 cannot capture a binding
      const double mm2 = component.second;
      CAPTURE(name);
      CHECK(std::isfinite(mm2));
      CHECK(mm2 >= 0);
    }
    ++seen;
  }
  CHECK(seen >= 15);
}

TEST_CASE("area: published GPU dies - the model counts 2% to 6% of each die") {
  // Measured (docs/area-model.md): the component model gives 2.2% (GH100, 4 nm) to 5.1%
  // (GV100, 12 nm) of the published die, with the config's SMs or the die's full count.
  // It is always an underestimate: no wiring, uncore, I/O or PHYs, and (node/45)^2 scaling
  // overstates the density of FinFET nodes.
  constexpr double kLow = 0.02, kHigh = 0.06;
  const AreaTable& t = default_area_table();
  int gpus = 0;
  if (print_tables()) {
    std::printf("| Die | Config (SMs) | Node | Published die (mm²) | Model, config's SMs (mm²) | Share of die | "
                "Model, die's SMs (mm²) | Share of die |\n|---|---|---|---|---|---|---|---|\n");
  }
  for (const ReferenceDie& die : t.reference_dies) {
    if (die.sms_on_die == 0) continue;
    CAPTURE(die.name);
    const Architecture arch = shipped(die.config);
    REQUIRE(arch.is_gpu());
    const AreaBreakdown a = area_of(arch);
    CHECK(a.technology_nm == die.technology_nm);
    const double model = a.total_mm2();
    const double full = full_die_mm2(a, t, arch.gpu().sms, die.sms_on_die);
    CHECK(model / die.die_mm2 >= kLow);
    CHECK(model / die.die_mm2 <= kHigh);
    CHECK(full / die.die_mm2 >= kLow);
    CHECK(full / die.die_mm2 <= kHigh);
    if (print_tables()) {
      std::printf("| %s | `%s` (%d) | %g nm | %g | %.1f | %.1f%% | %.1f (%d SMs) | %.1f%% |\n", die.name.c_str(),
                  die.config.c_str(), arch.gpu().sms, die.technology_nm, die.die_mm2, model, 100 * model / die.die_mm2,
                  full, die.sms_on_die, 100 * full / die.die_mm2);
    }
    ++gpus;
  }
  CHECK(gpus == 4);
  if (print_tables()) {
    // Where the model's area goes, per SM at 45 nm, and the published transistor densities.
    std::printf("\n| Config | Component | mm² at the config's node | share |\n|---|---|---|---|\n");
    for (const ReferenceDie& die : t.reference_dies) {
      if (die.sms_on_die == 0) continue;
      const AreaBreakdown a = area_of(shipped(die.config));
      for (const auto& [n, mm2] : a.components_mm2) {
        std::printf("| `%s` | %s | %.2f | %.1f%% |\n", die.config.c_str(), n.c_str(), mm2, 100 * mm2 / a.total_mm2());
      }
    }
  }
  // How much of the spread between the dies is the (node/45)^2 rule: the density gain it
  // assumes over GV100, (12 / node)^2, against the published transistor densities' gain.
  // Corrected by the published gain instead, the four shares lie within a factor 2.
  const ReferenceDie* base = nullptr;
  double lo = 1, hi = 0;
  if (print_tables()) {
    std::printf("\n| Die | Node | MTr/mm² (published) | Density gain over GV100: (12/node)² | published | "
                "Share of die | Share with the published gain |\n|---|---|---|---|---|---|---|\n");
  }
  for (const ReferenceDie& die : t.reference_dies) {
    if (die.sms_on_die == 0 || die.transistors_billion <= 0) continue;
    if (base == nullptr) base = &die;  // GV100, listed first
    const double density = die.transistors_billion * 1e3 / die.die_mm2;
    const double base_density = base->transistors_billion * 1e3 / base->die_mm2;
    const double assumed_gain = (base->technology_nm / die.technology_nm) * (base->technology_nm / die.technology_nm);
    const double published_gain = density / base_density;
    const double share = area_of(shipped(die.config)).total_mm2() / die.die_mm2;
    const double corrected = share * assumed_gain / published_gain;
    lo = std::min(lo, corrected);
    hi = std::max(hi, corrected);
    if (print_tables()) {
      std::printf("| %s | %g nm | %.1f | %.2f | %.2f | %.1f%% | %.1f%% |\n", die.name.c_str(), die.technology_nm,
                  density, assumed_gain, published_gain, 100 * share, 100 * corrected);
    }
  }
  REQUIRE(base != nullptr);
  CHECK(base->config == "v100.json");
  CHECK(hi / lo < 2);
}

TEST_CASE("area: published TPU v1 - the matrix unit and buffers within the documented factors") {
  // Jouppi et al. 2017: die < 331 mm2 at 28 nm; MXU 24%, Unified Buffer + Accumulators 35%,
  // control 2%. The model's PE array is 0.39 of the MXU bound and its ifmap + ofmap
  // buffers 0.47 of the buffers' bound (docs/area-model.md); since the die is at most
  // 331 mm2 these are lower bounds on the true ratios, asserted within [0.3, 1].
  const AreaTable& t = default_area_table();
  const ReferenceDie* tpu = nullptr;
  for (const ReferenceDie& d : t.reference_dies) {
    if (d.config == "tpu_v1_like.json") tpu = &d;
  }
  REQUIRE(tpu != nullptr);
  CHECK(tpu->die_mm2_is_upper_bound);
  const AreaBreakdown at45 = area_of(shipped(tpu->config));
  CHECK(at45.technology_nm == 45);  // the config's energy table node
  const AreaBreakdown a = scale_area(at45, tpu->technology_nm);
  if (print_tables()) {
    std::printf("| Part | Published (mm², at most) | Model at 28 nm (mm²) | Model / published |\n|---|---|---|---|\n");
  }
  REQUIRE(tpu->parts.size() == 3);
  for (const ReferenceDie::Part& part : tpu->parts) {
    CAPTURE(part.name);
    double model = 0;
    for (const std::string& c : part.components) model += component(a, c);
    const double published = part.fraction * tpu->die_mm2;
    const double ratio = model / published;
    if (part.name != "control") {
      CHECK(ratio >= 0.3);
      CHECK(ratio <= 1.0);
    }
    if (print_tables()) {
      std::printf("| %s (%.0f%%) | %.1f | %.1f | %.2f |\n", part.name.c_str(), 100 * part.fraction, published, model, ratio);
    }
  }
  const double ratio = a.total_mm2() / tpu->die_mm2;
  CHECK(ratio >= 0.2);
  CHECK(ratio <= 1.0);
  if (print_tables()) std::printf("| whole die | %.0f | %.1f | %.2f |\n", tpu->die_mm2, a.total_mm2(), ratio);
}

TEST_CASE("area: malformed tables are InputErrors naming file and field") {
  const Json good = load_json_file(source_path("configs/area/area_45nm.json"));
  const fs::path dir = fs::temp_directory_path() / ("loom_area_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto expect_error = [&](const Json& j, const std::string& field, const std::string& words) {
    CAPTURE(field);
    const fs::path p = dir / "bad_area.json";
    write_file(p, j.dump(2));
    try {
      (void)load_area_table(p.string());
      FAIL("accepted a bad table");
    } catch (const InputError& e) {
      CHECK(e.file() == p.string());
      CHECK(e.field() == field);
      CHECK(std::string(e.what()).find(words) != std::string::npos);
    }
  };
  Json j = good;
  j["logic"]["int_adder"]["umm2"] = 1;  // unknown key next to a valid entry
  expect_error(j, "logic.int_adder.umm2", "unknown key");
  j = good;
  j["sram"]["bit_cell_nm2"] = 1;
  expect_error(j, "sram.bit_cell_nm2", "unknown key");
  j = good;
  j["logic"]["fp8_multiplier"] = good["logic"]["fp_multiplier"];
  expect_error(j, "logic.fp8_multiplier", "unknown key");
  j = good;
  j["logic"]["register"]["um2"] = -7.5;
  expect_error(j, "logic.register.um2", "positive");
  j = good;
  j["sram"]["bit_cell_um2"] = -0.346;
  expect_error(j, "sram.bit_cell_um2", "positive");
  j = good;
  j["logic"]["int_adder"].erase("source");
  expect_error(j, "logic.int_adder.source", "missing required field");
  j = good;
  j["sram"]["source"] = "";
  expect_error(j, "sram.source", "citation");
  j = good;
  j["reference_dies"][0].erase("source");
  expect_error(j, "reference_dies[0].source", "missing required field");
  j = good;
  j["overheads"]["accelerator_control_fraction"]["value"] = 1;
  expect_error(j, "overheads.accelerator_control_fraction.value", "fraction");
  j = good;
  j["sram"]["array_efficiency"] = 1.5;
  expect_error(j, "sram.array_efficiency", "fraction");
  j = good;
  j["logic"]["int_multiplier"]["width_scaling"] = "cubic";
  expect_error(j, "logic.int_multiplier.width_scaling", "quadratic|linear|none");
  j = good;
  j["schema"] = "loom-area/2";
  expect_error(j, "schema", "loom-area/1");
  fs::remove_all(dir);

  try {
    (void)load_area_table("<embedded>:no_such_table");
    FAIL("loaded a missing embedded table");
  } catch (const InputError& e) {
    CHECK(e.file() == "<embedded>:no_such_table");
  }
}
