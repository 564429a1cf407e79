// The analytic cost model against counts worked out by hand on tiny nests, and its
// error reports for infeasible mappings. (Agreement with the systolic cycle simulator is
// in test_cost_model_vs_systolic.cpp.)
#include <doctest/doctest.h>

#include "mapper/cost_model.h"

using namespace loom;

namespace {

// DRAM -> Buffer (fan-out 2 columns) -> RF -> MACs, 16-bit words, explicit energies so
// the totals can be added up by hand.
HierarchyConfig tiny_arch() {
  HierarchyConfig a;
  a.name = "tiny";
  a.word_bits = {16, 16, 16};
  a.mac_pj = 1;
  StorageLevel dram;
  dram.name = "DRAM";
  dram.kind = LevelKind::dram;
  dram.unbounded = true;
  dram.read_pj = dram.write_pj = {100, 100, 100};
  dram.read_bytes_per_cycle = 1;  // 1 B/cycle: reads are the bottleneck below
  StorageLevel buf;
  buf.name = "Buffer";
  buf.capacity_bytes = 1024;
  buf.read_pj = buf.write_pj = {10, 10, 10};
  buf.fanout.x = 2;
  buf.fanout.operand_hop_pj = {2, 2, 2};
  StorageLevel rf;
  rf.name = "RF";
  rf.kind = LevelKind::regfile;
  rf.shared = false;
  rf.operand_capacity_bytes = {6, 6, 2};  // 3 weights, 3 inputs, 1 output
  rf.read_pj = rf.write_pj = {1, 1, 1};
  a.levels = {dram, buf, rf};
  return a;
}

// 1-D convolution: 2 filters of 3 taps over 6 inputs -> 2 x 4 outputs; 24 MACs.
Problem tiny_conv() {
  Problem p;
  p.layer_name = "tiny";
  p.bound[kDimK] = 2;
  p.bound[kDimP] = 4;
  p.bound[kDimR] = 3;
  return p;
}

}  // namespace

TEST_CASE("cost model: hand-computed counts, no reuse in the RF") {
  // Buffer: for P in 4, for R in 3 (R innermost), spatial-x K2. RF holds one word each.
  const HierarchyConfig a = tiny_arch();
  const Problem p = tiny_conv();
  Mapping m;
  m.num_levels = 3;
  m.levels[1].temporal[kDimP] = 4;
  m.levels[1].temporal[kDimR] = 3;
  m.levels[1].order = loop_order({kDimP, kDimR});
  m.levels[1].spatial_x[kDimK] = 2;
  const Cost c = evaluate(p, a, m);
  REQUIRE(c.valid);
  const auto& dram = c.levels[0].ops;
  const auto& buf = c.levels[1].ops;
  const auto& rf = c.levels[2].ops;
  // DRAM: each operand moves once (the buffer holds the whole layer).
  CHECK(dram[kWeights].reads == 6);
  CHECK(dram[kInputs].reads == 6);
  CHECK(dram[kOutputs].updates == 8);
  CHECK(dram[kOutputs].reads == 0);
  // Buffer -> RF. Weights: R innermost indexes them, so every (P, R) iteration refills
  // each PE's one-word tile: 4 x 3 x 2 PEs = 24, no multicast (K differs per PE).
  CHECK(buf[kWeights].fills == 6);
  CHECK(buf[kWeights].reads == 24);
  CHECK(rf[kWeights].fills == 24);
  // Inputs: the same word goes to both PEs (K does not index inputs): 12 buffer reads
  // multicast into 24 RF fills.
  CHECK(buf[kInputs].reads == 12);
  CHECK(rf[kInputs].fills == 24);
  // Outputs: the R loop accumulates inside the RF; each (P, K) output goes up once.
  CHECK(buf[kOutputs].updates == 8);
  CHECK(buf[kOutputs].reads == 0);
  CHECK(buf[kOutputs].drains == 8);
  CHECK(rf[kOutputs].drains == 8);
  CHECK(rf[kOutputs].fills == 0);
  // RF -> MACs: every MAC reads a weight and an input and read-modify-writes its sum;
  // the first update of each of the 8 outputs needs no read.
  CHECK(rf[kWeights].reads == 24);
  CHECK(rf[kInputs].reads == 24);
  CHECK(rf[kOutputs].updates == 24);
  CHECK(rf[kOutputs].reads == 16);
  // Network: 24 weights + 24 inputs + 8 outputs cross the buffer's fan-out.
  CHECK(c.levels[1].network_deliveries == 56);
  // Energy: DRAM 20 x 100, buffer 64 x 10, RF 144 x 1, network 56 x 2, MACs 24 x 1.
  CHECK(c.energy_pj == doctest::Approx(2000 + 640 + 144 + 112 + 24));
  // Cycles: 12 temporal iterations, but DRAM must send 12 words x 2 B at 1 B/cycle.
  CHECK(c.compute_cycles == 12);
  CHECK(c.levels[0].bandwidth_cycles == 24);
  CHECK(c.cycles == 24);
  CHECK(c.bottleneck == 0);
  CHECK(c.utilization == doctest::Approx(24.0 / (2 * 24)));
}

TEST_CASE("cost model: hand-computed counts, sliding-window reuse in the RF") {
  // Buffer: for P in 4, spatial-x K2; RF: for R in 3. The RF keeps a 3-input window;
  // each new P shifts it by one input, so only one new word per step is fetched.
  const HierarchyConfig a = tiny_arch();
  const Problem p = tiny_conv();
  Mapping m;
  m.num_levels = 3;
  m.levels[1].temporal[kDimP] = 4;
  m.levels[1].spatial_x[kDimK] = 2;
  m.levels[2].temporal[kDimR] = 3;
  const Cost c = evaluate(p, a, m);
  REQUIRE(c.valid);
  const auto& buf = c.levels[1].ops;
  const auto& rf = c.levels[2].ops;
  CHECK(c.levels[2].tile_words[kInputs] == 3);
  CHECK(rf[kInputs].fills == 2 * (3 + 3 * 1));  // per PE: the first window, then 1 per step
  CHECK(buf[kInputs].reads == 6);               // multicast: each input read once
  CHECK(rf[kWeights].fills == 6);               // each PE's 3 taps, once (P does not index them)
  CHECK(buf[kWeights].reads == 6);
  CHECK(buf[kOutputs].updates == 8);
  CHECK(rf[kWeights].reads == 24);
  CHECK(rf[kOutputs].updates == 24);
}

TEST_CASE("cost model: groups repeat the nest, multiplying counts, cycles and energy") {
  const HierarchyConfig a = tiny_arch();
  Problem p = tiny_conv();
  Mapping m;
  m.num_levels = 3;
  m.levels[1].temporal[kDimP] = 4;
  m.levels[1].spatial_x[kDimK] = 2;
  m.levels[2].temporal[kDimR] = 3;
  const Cost one = evaluate(p, a, m);
  p.groups = 3;
  const Cost three = evaluate(p, a, m);
  REQUIRE(three.valid);
  CHECK(three.macs == 3 * one.macs);
  CHECK(three.cycles == 3 * one.cycles);
  CHECK(three.levels[1].ops[kInputs].reads == 3 * one.levels[1].ops[kInputs].reads);
  CHECK(three.energy_pj == doctest::Approx(3 * one.energy_pj));
}

TEST_CASE("cost model: infeasible mappings are rejected with the level, operand and limit") {
  const HierarchyConfig a = tiny_arch();
  const Problem p = tiny_conv();
  MappingIssue issue;

  Mapping over_rf;  // the whole R loop in an RF that holds one output but 3 weights: fine;
  over_rf.num_levels = 3;  // put P there too: 4 outputs x 2 B > 2 B.
  over_rf.levels[1].spatial_x[kDimK] = 2;
  over_rf.levels[2].temporal[kDimP] = 4;
  over_rf.levels[2].temporal[kDimR] = 3;
  CHECK_FALSE(evaluate(p, a, over_rf).valid);
  CHECK_FALSE(check_mapping(p, a, over_rf, &issue));
  CHECK(issue.level == 2);
  CHECK(issue.what.find("needs") != std::string::npos);
  CHECK(issue.what.find("B") != std::string::npos);

  Mapping wide;  // 4 PEs on a 2-column fan-out
  wide.num_levels = 3;
  wide.levels[0].temporal[kDimR] = 3;
  wide.levels[1].spatial_x[kDimP] = 4;
  wide.levels[0].temporal[kDimK] = 2;
  CHECK_FALSE(check_mapping(p, a, wide, &issue));
  CHECK(issue.level == 1);
  CHECK(issue.what.find("2 columns") != std::string::npos);

  Mapping short_of_layer;  // P covered only to 2 of 4
  short_of_layer.num_levels = 3;
  short_of_layer.levels[0].temporal = {1, 2, 1, 2, 1, 3, 1};
  CHECK_FALSE(check_mapping(p, a, short_of_layer, &issue));
  CHECK(issue.what.find("loop P") != std::string::npos);
  CHECK(issue.what.find("cover") != std::string::npos);

  Mapping absurd;  // factors far beyond the bound cannot overflow the check
  absurd.num_levels = 3;
  absurd.levels[0].temporal = {1, int64_t{1} << 40, 1, int64_t{1} << 40, 1, 3, 1};
  absurd.levels[1].temporal = {1, int64_t{1} << 40, 1, 1, 1, 1, 1};
  CHECK_FALSE(check_mapping(p, a, absurd, &issue));

  Mapping wrong_levels;
  wrong_levels.num_levels = 2;
  CHECK_FALSE(check_mapping(p, a, wrong_levels, &issue));
  CHECK(issue.what.find("levels") != std::string::npos);
}
