// Fidelity ladder, analytic == cycle: for every mapping the systolic simulator can run,
// the cost model on the systolic config's hierarchy view must give the simulator's cycles,
// array-side SRAM counts, DRAM-side buffer counts, DRAM bytes and energy, when memory
// causes no stalls. Random layers, arrays, dataflows and buffer regimes.
//
// The simulator's schedule as a mapping (docs/cost-model.md): the fold loops (outer fold,
// then inner fold: for ws/is the output-column folds then the K folds; for os the row folds
// then the column folds) sit at DRAM or at the SRAM level, the streamed dimension is the
// SRAM level's innermost loop, and the array's rows and columns are the SRAM level's
// spatial-y and spatial-x loops. Where each fold loop sits follows the simulator's residency
// policy: an operand whose whole footprint fits its buffer is fetched once.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "arch/hierarchy/hierarchy_config.h"
#include "arch/systolic/systolic_simulator.h"
#include "mapper/cost_model.h"

using namespace loom;

namespace {

const EnergyTable& table() {
  static const EnergyTable t = EnergyTable::load("<embedded>:default_energy");
  return t;
}

// Mapper dimensions on the array's rows, columns and time, per dataflow (GEMM view:
// M is kDimP, N is kDimK, K is kDimC).
struct Roles {
  int row, col, time;
  int outer_fold, inner_fold;  // fold loop order of the simulator, outermost first
};
Roles roles_of(Dataflow d) {
  switch (d) {
    case Dataflow::ws: return {kDimC, kDimK, kDimP, kDimK, kDimC};
    case Dataflow::is: return {kDimC, kDimP, kDimK, kDimP, kDimC};
    case Dataflow::os: return {kDimP, kDimK, kDimC, kDimP, kDimK};
  }
  return {};
}

// The operand indexed by the inner fold loop but not the outer one: the one whose
// residency decides whether the inner fold loop may sit in SRAM.
int inner_only_operand(const Roles& r) {
  for (int o = 0; o < kNumOperands; ++o)
    if (relevant(o, r.inner_fold) && !relevant(o, r.outer_fold)) return o;
  return -1;
}

enum class Regime { stream, inner_resident, resident };

struct Case {
  SystolicConfig config;
  Layer layer;
  Mapping mapping;
};

// A random GEMM whose dimensions tile the array exactly, a config whose buffers realise
// `regime`, and the mapping of the simulator's schedule.
Case make_case(std::mt19937_64& rng, Dataflow df, Regime regime) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const Roles r = roles_of(df);
  Case k;
  SystolicConfig& c = k.config;
  c.name = "agree";
  c.source_file = "<test>";
  c.dataflow = df;
  c.rows = pick(1, 12);
  c.cols = pick(1, 12);
  c.data_type = DataType::int8;
  c.ifmap_bits = 8;
  c.filter_bits = 8;
  c.ofmap_bits = 32;
  c.dram.unlimited = true;
  c.sram.double_buffered = pick(0, 1) == 1;
  c.energy_table = "<embedded>:default_energy";

  // Rows and columns used per fold: the whole array when the dimension folds, else its size.
  const int64_t row_folds = pick(1, 3), col_folds = pick(1, 3);
  const int64_t rows_used = row_folds > 1 ? c.rows : pick(1, c.rows);
  const int64_t cols_used = col_folds > 1 ? c.cols : pick(1, c.cols);
  DimArray bound{1, 1, 1, 1, 1, 1, 1};
  bound[r.row] = rows_used * row_folds;
  bound[r.col] = cols_used * col_folds;
  bound[r.time] = pick(1, 24);
  const int64_t groups = pick(1, 2);
  k.layer.name = "g";
  k.layer.kind = LayerKind::gemm;
  k.layer.gemm = {bound[kDimP], bound[kDimK], bound[kDimC], groups};

  // Fold loop factors per dimension.
  DimArray folds{1, 1, 1, 1, 1, 1, 1};
  folds[r.row] = row_folds;
  folds[r.col] = col_folds;
  const bool inner_in_sram = regime != Regime::stream;
  const bool outer_in_sram = regime == Regime::resident;

  Mapping& m = k.mapping;
  m.num_levels = 3;
  LevelMapping& dram = m.levels[0];
  LevelMapping& sram = m.levels[1];
  std::vector<int> dram_loops, sram_loops;  // outermost first
  auto place = [&](int dim, bool in_sram) {
    (in_sram ? sram : dram).temporal[dim] = folds[dim];
    (in_sram ? sram_loops : dram_loops).push_back(dim);
  };
  place(r.outer_fold, outer_in_sram);
  place(r.inner_fold, inner_in_sram);
  sram.temporal[r.time] = bound[r.time];
  sram_loops.push_back(r.time);
  dram.order = loop_order(dram_loops);
  sram.order = loop_order(sram_loops);
  sram.spatial_y[r.row] = rows_used;
  sram.spatial_x[r.col] = cols_used;

  // Buffer sizes: each operand gets exactly what its SRAM tile needs under this mapping,
  // and for the operands the simulator must stream, less than their whole footprint.
  Problem p;
  p.is_gemm = true;
  p.bound = bound;
  DimArray tile{1, 1, 1, 1, 1, 1, 1};
  for (int d = 0; d < kNumDims; ++d) tile[d] = sram.temporal[d] * sram.spatial_x[d] * sram.spatial_y[d];
  const std::array<int, kNumOperands> bits{c.filter_bits, c.ifmap_bits, c.ofmap_bits};
  std::array<int64_t, kNumOperands> need{};
  for (int o = 0; o < kNumOperands; ++o) {
    need[o] = bytes_for(p.tile_elements(o, tile), bits[o]) + pick(0, 3);
    if (c.sram.double_buffered) need[o] *= 2;
  }
  c.sram.filter_bytes = need[kWeights];
  c.sram.ifmap_bytes = need[kInputs];
  c.sram.ofmap_bytes = need[kOutputs];
  return k;
}

// The simulator's residency decision, to skip the rare draw where the few bytes of slack
// let a streamed operand fit whole after all (then the simulator keeps it resident while
// the stream mapping refetches it for every outer fold: a different schedule).
bool regime_holds(const Case& k, Dataflow df, Regime regime) {
  const Roles r = roles_of(df);
  const int o = inner_only_operand(r);
  const GemmView g = k.layer.gemm_view();
  const SystolicConfig& c = k.config;
  const int64_t whole[kNumOperands] = {bytes_for(g.k * g.n, c.filter_bits), bytes_for(g.m * g.k, c.ifmap_bits),
                                       bytes_for(g.m * g.n, c.ofmap_bits)};
  const int64_t have[kNumOperands] = {c.sram.working_bytes(c.sram.filter_bytes),
                                      c.sram.working_bytes(c.sram.ifmap_bytes),
                                      c.sram.working_bytes(c.sram.ofmap_bytes)};
  const bool outer_folds = k.mapping.levels[0].temporal[r.outer_fold] > 1 ||
                           k.mapping.levels[1].temporal[r.outer_fold] > 1;
  if (regime == Regime::stream && outer_folds && whole[o] <= have[o]) return false;
  return true;
}

}  // namespace

TEST_CASE("cost model == systolic cycle simulator on random GEMMs, dataflows and buffer regimes") {
  std::mt19937_64 rng(3);
  int compared = 0;
  for (Dataflow df : {Dataflow::ws, Dataflow::is, Dataflow::os}) {
    for (Regime regime : {Regime::stream, Regime::inner_resident, Regime::resident}) {
      for (int i = 0; i < 60; ++i) {
        const Case k = make_case(rng, df, regime);
        if (!regime_holds(k, df, regime)) continue;
        CAPTURE(name_of(df));
        CAPTURE(static_cast<int>(regime));
        CAPTURE(k.layer.gemm.m);
        CAPTURE(k.layer.gemm.n);
        CAPTURE(k.layer.gemm.k);
        CAPTURE(k.layer.gemm.groups);
        CAPTURE(k.config.rows);
        CAPTURE(k.config.cols);
        Network net;
        net.name = "one";
        net.layers = {k.layer};
        const LayerResult sim = simulate_network(k.config, net, table(), SimulationOptions{}).layers.at(0);
        REQUIRE(sim.cycles_stall == 0);

        const HierarchyConfig h = hierarchy_from_systolic(k.config, table());
        const Problem p = problem_of(k.layer, h.im2col);
        MappingIssue issue;
        INFO(issue.what);
        REQUIRE(check_mapping(p, h, k.mapping, &issue));
        const Cost cost = evaluate(p, h, k.mapping);
        REQUIRE(cost.valid);
        const auto& sram = cost.levels[1].ops;
        const auto& dram = cost.levels[0];
        CHECK(cost.cycles == sim.cycles_total);
        CHECK(cost.macs == sim.macs);
        CHECK(cost.folds == sim.folds);
        CHECK(sram[kInputs].reads == sim.sram.ifmap_reads);
        CHECK(sram[kWeights].reads == sim.sram.filter_reads);
        CHECK(sram[kOutputs].reads == sim.sram.ofmap_reads);
        CHECK(sram[kOutputs].updates == sim.sram.ofmap_writes);
        CHECK(sram[kInputs].fills == sim.ifmap_fill_writes);
        CHECK(sram[kWeights].fills == sim.filter_fill_writes);
        CHECK(sram[kOutputs].fills == sim.ofmap_fill_writes);
        CHECK(sram[kOutputs].drains == sim.ofmap_drain_reads);
        CHECK(dram.read_bytes == sim.dram_read_bytes);
        CHECK(dram.write_bytes == sim.dram_write_bytes);
        CHECK(cost.energy_pj == doctest::Approx(sim.energy.total_pj()).epsilon(1e-9));
        ++compared;
      }
    }
  }
  MESSAGE("compared " << compared << " random layer/mapping pairs");
  CHECK(compared > 400);
}
