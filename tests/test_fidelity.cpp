// Fidelity ladder: the fast SystemC cycle model must equal the PE-level model on cycles and
// SRAM access counts whenever memory is ideal; and the stall machinery must behave as the
// closed forms say when it is not.
#include <doctest/doctest.h>

#include <random>

#include "arch/systolic/pe_array_model.h"
#include "arch/systolic/systolic_simulator.h"
#include "workloads/im2col.h"

using namespace loom;

namespace {

SystolicConfig ideal_config(int64_t rows, int64_t cols, Dataflow df) {
  SystolicConfig c;
  c.name = "test";
  c.source_file = "<test>";
  c.rows = rows;
  c.cols = cols;
  c.dataflow = df;
  c.sram.ifmap_bytes = c.sram.filter_bytes = c.sram.ofmap_bytes = int64_t{64} << 20;
  c.dram.unlimited = true;
  c.energy_table = "<embedded>:default_energy";
  return c;
}

const EnergyTable& table() {
  static const EnergyTable t = EnergyTable::load("<embedded>:default_energy");
  return t;
}

LayerResult simulate_one(const SystolicConfig& c, const Layer& layer, bool compat) {
  Network net;
  net.name = "one";
  net.layers = {layer};
  SimulationOptions o;
  o.scalesim_compat = compat;
  return simulate_network(c, net, table(), o).layers.at(0);
}

Layer random_layer(std::mt19937_64& rng, int index) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Layer l;
  l.name = "l" + std::to_string(index);
  l.batch = pick(1, 2);
  if (pick(0, 1) == 0) {
    l.kind = LayerKind::gemm;
    l.gemm = {pick(1, 40), pick(1, 40), pick(1, 40), pick(1, 2)};
    return l;
  }
  l.kind = LayerKind::conv2d;
  Conv2d& c = l.conv;
  c.groups = pick(1, 3);
  c.in_channels = c.groups * pick(1, 4);
  c.out_channels = c.groups * pick(1, 6);
  c.kernel_h = pick(1, 3);
  c.kernel_w = pick(1, 3);
  c.stride_h = pick(1, 2);
  c.stride_w = pick(1, 2);
  c.pad_h = pick(0, 1);
  c.pad_w = pick(0, 1);
  c.dilation_h = pick(1, 2);
  c.dilation_w = pick(1, 2);
  c.in_h = pick(c.dilation_h * (c.kernel_h - 1) + 1, 9);
  c.in_w = pick(c.dilation_w * (c.kernel_w - 1) + 1, 9);
  return l;
}

}  // namespace

TEST_CASE("fidelity: fast cycle model == PE-level model on random layers, all dataflows, both conventions") {
  std::mt19937_64 rng(20261121);
  int cases = 0;
  for (Dataflow df : {Dataflow::ws, Dataflow::is, Dataflow::os}) {
    for (bool compat : {false, true}) {
      for (int i = 0; i < 40; ++i) {
        const int64_t rows = std::uniform_int_distribution<int64_t>(1, 16)(rng);
        const int64_t cols = std::uniform_int_distribution<int64_t>(1, 16)(rng);
        const Layer layer = random_layer(rng, i);
        std::string field;
        REQUIRE(shape_error(layer, &field) == "");
        const SystolicConfig c = ideal_config(rows, cols, df);

        // Random operands; the PE-level model computes real outputs on them.
        const std::vector<int64_t> ifmap = [&] {
          std::vector<int64_t> v(static_cast<size_t>(layer.ifmap_elements()));
          for (auto& x : v) x = std::uniform_int_distribution<int64_t>(-8, 8)(rng);
          return v;
        }();
        std::vector<int64_t> weights(static_cast<size_t>(layer.filter_elements()));
        for (auto& x : weights) x = std::uniform_int_distribution<int64_t>(-8, 8)(rng);
        const PeLevelResult detailed =
            run_pe_level(geometry_of(c, compat), im2col(layer, ifmap), filter_matrices(layer, weights));
        const LayerResult fast = simulate_one(c, layer, compat);

        CAPTURE(name_of(df));
        CAPTURE(compat);
        CAPTURE(rows);
        CAPTURE(cols);
        CAPTURE(layer.gemm_view().m);
        CAPTURE(layer.gemm_view().n);
        CAPTURE(layer.gemm_view().k);
        // Under SCALE-Sim's conventions a layer reports the index of its last cycle.
        CHECK(fast.cycles_total == detailed.cycles - (compat ? 1 : 0));
        CHECK(fast.cycles_stall == 0);
        CHECK(fast.macs == detailed.macs);
        CHECK(fast.sram == detailed.sram);
        const auto expected = reference_conv2d(layer, ifmap, weights);
        for (size_t g = 0; g < expected.size(); ++g) CHECK(detailed.outputs[g] == expected[g]);
        ++cases;
      }
    }
  }
  CHECK(cases == 240);
}

TEST_CASE("stalls: one fold against a finite DRAM follows the closed form exactly") {
  // 4x4 WS, GEMM M=8 N=4 K=4, int8 operands, 32-bit outputs.
  SystolicConfig c = ideal_config(4, 4, Dataflow::ws);
  c.dram.unlimited = false;
  c.dram.bytes_per_cycle = 4;
  c.dram.latency_cycles = 10;
  Layer l;
  l.name = "g";
  l.gemm = {8, 4, 4, 1};
  const LayerResult r = simulate_one(c, l, false);
  // Prefetch 16 B filter + 32 B ifmap = 48 B: 12 cycles + 10 latency -> fold starts at 22.
  // Fold: 4 (preload) + 8 + 4 + 4 - 2 = 18 cycles -> ends at 40.
  // Write 8x4 outputs x 4 B = 128 B: 32 cycles + 10 latency -> done at 82.
  CHECK(r.cycles_compute == 18);
  CHECK(r.cycles_total == 82);
  CHECK(r.cycles_stall == 64);
  CHECK(r.dram_read_bytes == 48);
  CHECK(r.dram_write_bytes == 128);
  CHECK(r.dram_peak_bytes_per_cycle <= 4.0 + 1e-9);
}

TEST_CASE("stalls: zero with unlimited bandwidth, positive and monotone as bandwidth shrinks") {
  Layer l;
  l.name = "conv";
  l.kind = LayerKind::conv2d;
  l.conv = {28, 28, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  SystolicConfig c = ideal_config(16, 16, Dataflow::ws);
  const LayerResult ideal = simulate_one(c, l, false);
  CHECK(ideal.cycles_stall == 0);
  CHECK(ideal.cycles_total == ideal.cycles_compute);
  c.dram.unlimited = false;
  c.dram.latency_cycles = 50;
  int64_t previous = 0;
  for (double bw : {64.0, 16.0, 4.0, 1.0}) {
    c.dram.bytes_per_cycle = bw;
    const LayerResult r = simulate_one(c, l, false);
    CAPTURE(bw);
    CHECK(r.cycles_stall > 0);
    CHECK(r.cycles_total == r.cycles_compute + r.cycles_stall);
    CHECK(r.cycles_total >= previous);
    CHECK(r.sram == ideal.sram);  // memory speed never changes what the array reads
    CHECK(r.dram_read_bytes == ideal.dram_read_bytes);
    previous = r.cycles_total;
  }
}

TEST_CASE("stalls: an SRAM port narrower than the array edge stretches folds") {
  Layer l;
  l.name = "g";
  l.gemm = {64, 16, 16, 1};
  SystolicConfig c = ideal_config(16, 16, Dataflow::ws);
  const LayerResult wide = simulate_one(c, l, false);
  c.sram.ifmap_words_per_cycle = 4;  // the array wants 16 ifmap words per cycle
  const LayerResult narrow = simulate_one(c, l, false);
  CHECK(wide.cycles_stall == 0);
  // One fold reads 64 x 16 ifmap words: 256 cycles at 4 words per cycle.
  CHECK(narrow.cycles_total == 256);
  CHECK(narrow.cycles_stall == 256 - wide.cycles_compute);
}

TEST_CASE("dram traffic: resident operands are read once; small ofmap buffers spill partial sums") {
  Layer l;
  l.name = "g";
  l.gemm = {32, 8, 40, 1};  // K = 40 on 16 rows: 3 K folds
  SystolicConfig c = ideal_config(16, 16, Dataflow::ws);
  const LayerResult big = simulate_one(c, l, false);
  CHECK(big.dram_read_bytes == 32 * 40 + 40 * 8);  // ifmap + filter, int8, once each
  CHECK(big.dram_write_bytes == 32 * 8 * 4);       // final outputs only
  c.sram.ofmap_bytes = 2 * 512;  // half = 512 B < the 32 x 8 x 4 B = 1 KiB partial-sum tile
  const LayerResult spill = simulate_one(c, l, false);
  CHECK(spill.dram_write_bytes == 3 * 32 * 8 * 4);                  // every K fold writes
  CHECK(spill.dram_read_bytes == big.dram_read_bytes + 2 * 32 * 8 * 4);  // two read-backs
}

TEST_CASE("energy: every component is priced and the total is their sum") {
  Layer l;
  l.name = "g";
  l.gemm = {64, 32, 48, 1};
  SystolicConfig c = ideal_config(16, 16, Dataflow::os);
  const LayerResult r = simulate_one(c, l, false);
  CHECK(r.energy.mac_pj == doctest::Approx(64.0 * 32 * 48 * table().mac_pj(DataType::int8)));
  CHECK(r.energy.sram_ifmap_pj > 0);
  CHECK(r.energy.sram_filter_pj > 0);
  CHECK(r.energy.sram_ofmap_pj > 0);
  CHECK(r.energy.dram_pj == doctest::Approx((r.dram_read_bytes + r.dram_write_bytes) * 70.0 * 8));
  CHECK(r.energy.total_pj() == doctest::Approx(r.energy.mac_pj + r.energy.sram_ifmap_pj + r.energy.sram_filter_pj +
                                               r.energy.sram_ofmap_pj + r.energy.dram_pj));
  // DRAM costs orders of magnitude more per byte than a MAC: the published ordering holds.
  CHECK(table().dram_pj_per_byte("DDR3") > 100 * table().mac_pj(DataType::int8));
  CHECK(table().sram_access_pj(1 << 20, 64) == doctest::Approx(100.0));
  CHECK(table().sram_access_pj(8192, 64) == doctest::Approx(10.0));
}

TEST_CASE("double buffering: prefetch overlaps compute; a single buffer serialises, per the closed form") {
  // 4x4 WS, GEMM M=8 N=8 K=4: two column folds of 18 cycles each. int8 in, 32-bit out,
  // 4 B/cycle DRAM, no latency. Fold 0 reads 16 B filter + 32 B ifmap (the ifmap then
  // stays resident), fold 1 reads 16 B filter; each fold writes 8x4x4 = 128 B (32 cycles).
  SystolicConfig c = ideal_config(4, 4, Dataflow::ws);
  c.dram.unlimited = false;
  c.dram.bytes_per_cycle = 4;
  Layer l;
  l.name = "g";
  l.gemm = {8, 8, 4, 1};
  // Double: f0 data at 12, f1 data at 16; f0 runs 12-30, f1 30-48; writes 30-62, 62-94.
  CHECK(simulate_one(c, l, false).cycles_total == 94);
  // Single: f0 runs 12-30; f0 write 30-62; f1 data only after its slot is free: 62-66;
  // f1 runs 66-84; its write 84-116.
  c.sram.double_buffered = false;
  CHECK(simulate_one(c, l, false).cycles_total == 116);
  c.dram.unlimited = true;
  CHECK(simulate_one(c, l, false).cycles_stall == 0);
}
