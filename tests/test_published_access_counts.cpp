// Published access-count model: the Eyeriss paper's per-datum access counts for given
// reuse factors at DRAM (a), global buffer (b), array (c) and RF (d). The formulas and
// cases live in validate/published/eyeriss_isca2016_reuse.json with their source; this
// test builds, for each case, nests whose reuse factors are exactly a, b, c, d and checks
// loom's counts against the formulas.
#include <doctest/doctest.h>

#include <cmath>

#include "mapper/cost_model.h"
#include "sim/json_reader.h"

using namespace loom;

namespace {

// DRAM -> GLB -(16 PEs)-> RF -> MACs, with room for every tile the cases need.
HierarchyConfig chain() {
  HierarchyConfig h;
  h.name = "reuse_chain";
  h.word_bits = {16, 16, 16};
  StorageLevel dram, glb, rf;
  dram.name = "DRAM";
  dram.kind = LevelKind::dram;
  dram.unbounded = true;
  glb.name = "GLB";
  glb.capacity_bytes = 1 << 20;
  glb.fanout.x = 16;
  rf.name = "RF";
  rf.kind = LevelKind::regfile;
  rf.capacity_bytes = 1 << 12;
  h.levels = {dram, glb, rf};
  return h;
}

// Reuse of one datum across the irrelevant dimension `reuse_dim` (K for inputs, C for
// partial sums): a at DRAM and b at the GLB (each outside a P loop that forces a refetch),
// c across the PEs, d in the RF.
Mapping reuse_nest(int reuse_dim, int64_t a, int64_t b, int64_t c, int64_t d) {
  Mapping m;
  m.num_levels = 3;
  const std::array<int8_t, kNumDims> order = loop_order({reuse_dim, kDimP});
  m.levels[0].temporal[reuse_dim] = a;
  m.levels[0].temporal[kDimP] = 2;
  m.levels[0].order = order;
  m.levels[1].temporal[reuse_dim] = b;
  m.levels[1].temporal[kDimP] = 2;
  m.levels[1].order = order;
  m.levels[1].spatial_x[reuse_dim] = c;
  m.levels[2].temporal[reuse_dim] = d;
  return m;
}

double term(const Json& t, const int64_t f[4]) {
  double v = t.at("coefficient").get<double>();
  for (int i = 0; i < 4; ++i) v *= std::pow(static_cast<double>(f[i]), t.at("powers").at(i).get<int>());
  return v + t.at("offset").get<double>();
}

}  // namespace

TEST_CASE("published access counts: Eyeriss ISCA 2016 reuse formulas") {
  const Json data = load_json_file(std::string(LOOM_SOURCE_DIR) + "/validate/published/eyeriss_isca2016_reuse.json");
  const HierarchyConfig h = chain();
  int cases = 0;
  for (const Json& k : data.at("cases")) {
    const int64_t f[4] = {k.at("a").get<int64_t>(), k.at("b").get<int64_t>(), k.at("c").get<int64_t>(),
                          k.at("d").get<int64_t>()};
    CAPTURE(f[0]);
    CAPTURE(f[1]);
    CAPTURE(f[2]);
    CAPTURE(f[3]);
    const int64_t reuse = f[0] * f[1] * f[2] * f[3];

    // Inputs reused across K: 4 input words (P = 4), each used by every K.
    Problem in;
    in.bound[kDimK] = reuse;
    in.bound[kDimP] = 4;
    const Cost ci = evaluate(in, h, reuse_nest(kDimK, f[0], f[1], f[2], f[3]));
    REQUIRE(ci.valid);
    const double words = static_cast<double>(in.operand_elements(kInputs));
    const Json& input = data.at("input_access");
    CHECK(ci.levels[0].ops[kInputs].reads / words == doctest::Approx(term(input.at("DRAM"), f)));
    CHECK(ci.levels[1].ops[kInputs].reads / words == doctest::Approx(term(input.at("buffer"), f)));
    CHECK(ci.levels[1].network_words[kInputs] / words == doctest::Approx(term(input.at("array"), f)));
    CHECK(ci.levels[2].ops[kInputs].reads / words == doctest::Approx(term(input.at("RF"), f)));

    // Partial sums accumulated across C: 4 outputs, each the sum over every C.
    Problem ps;
    ps.bound[kDimC] = reuse;
    ps.bound[kDimP] = 4;
    const Cost cp = evaluate(ps, h, reuse_nest(kDimC, f[0], f[1], f[2], f[3]));
    REQUIRE(cp.valid);
    const double outputs = static_cast<double>(ps.operand_elements(kOutputs));
    const OperandCounts& dram = cp.levels[0].ops[kOutputs];
    CHECK((dram.updates + dram.reads) / outputs ==
          doctest::Approx(term(data.at("psum_accumulation").at("DRAM"), f)));
    ++cases;
  }
  CHECK(cases >= 4);
}
