// Map-space search (mapper/search.h) and dataflow constraints (mapper/constraints.h) on a
// small hand-built hierarchy: exhaustive search equals an independent brute force over
// every mapping (every factorization into every slot, every permutation of every level's
// loops); random and anneal find valid mappings and never beat exhaustive; results do not
// depend on the thread count; each dataflow accepts a mapping obeying it and rejects one
// breaking it with the level named; an infeasible layer explains itself.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "mapper/constraints.h"
#include "mapper/cost_model.h"
#include "mapper/map_space.h"
#include "mapper/search.h"
#include "sim/error.h"

using namespace loom;

namespace {

// DRAM -> 512 B buffer shared by all operands (fan-out 4 x 4) -> 8-word register file ->
// one MAC per PE. 16-bit words; energies grow outward; DRAM at 4 B/cycle so some mappings
// are bandwidth-bound.
HierarchyConfig small_arch(int64_t rf_bytes = 16) {
  HierarchyConfig a;
  a.name = "small";
  a.word_bits = {16, 16, 16};
  a.mac_pj = 1;
  StorageLevel dram;
  dram.name = "DRAM";
  dram.kind = LevelKind::dram;
  dram.unbounded = true;
  dram.read_pj = dram.write_pj = {100, 100, 100};
  dram.read_bytes_per_cycle = dram.write_bytes_per_cycle = 4;
  StorageLevel buf;
  buf.name = "Buffer";
  buf.capacity_bytes = 512;
  buf.read_pj = {6, 6, 7};
  buf.write_pj = {6, 6, 8};
  buf.fanout.x = 4;
  buf.fanout.y = 4;
  buf.fanout.operand_hop_pj = {2, 2, 2};
  StorageLevel rf;
  rf.name = "RF";
  rf.kind = LevelKind::regfile;
  rf.capacity_bytes = rf_bytes;
  rf.read_pj = rf.write_pj = {1, 1, 1};
  a.levels = {dram, buf, rf};
  return a;
}

Problem conv(int64_t k, int64_t c, int64_t p, int64_t r, int64_t q = 1, int64_t s = 1) {
  Problem pr;
  pr.layer_name = "conv";
  pr.bound[kDimK] = k;
  pr.bound[kDimC] = c;
  pr.bound[kDimP] = p;
  pr.bound[kDimR] = r;
  pr.bound[kDimQ] = q;
  pr.bound[kDimS] = s;
  return pr;
}

// Every ordered factorization of n into `slots` factors.
void factorizations(int64_t n, int slots, std::vector<int64_t>& cur, std::vector<std::vector<int64_t>>& out) {
  if (static_cast<int>(cur.size()) == slots - 1) {
    cur.push_back(n);
    out.push_back(cur);
    cur.pop_back();
    return;
  }
  for (int64_t f = 1; f <= n; ++f)
    if (n % f == 0) {
      cur.push_back(f);
      factorizations(n / f, slots, cur, out);
      cur.pop_back();
    }
}

struct Brute {
  double best = std::numeric_limits<double>::infinity();
  int64_t valid = 0;
};

// The naive reference: no pruning, no order equivalence; the cost model and the
// constraint check decide everything.
Brute brute_force(const Problem& p, const HierarchyConfig& a, const MappingConstraints* c, Objective obj) {
  const int L = a.num_levels();
  const int slots = 3 * L;
  std::array<std::vector<std::vector<int64_t>>, kNumDims> per_dim;
  for (int d = 0; d < kNumDims; ++d) {
    std::vector<int64_t> cur;
    factorizations(p.bound[d], slots, cur, per_dim[d]);
  }
  Brute out;
  Mapping m;
  m.num_levels = L;
  std::array<size_t, kNumDims> pick{};
  while (true) {
    for (int d = 0; d < kNumDims; ++d)
      for (int l = 0; l < L; ++l) {
        const auto& f = per_dim[d][pick[d]];
        m.levels[l].temporal[d] = f[3 * l];
        m.levels[l].spatial_x[d] = f[3 * l + 1];
        m.levels[l].spatial_y[d] = f[3 * l + 2];
      }
    // Feasibility (coverage, fan-outs, capacities) does not depend on the loop order.
    const bool feasible = evaluate(p, a, m).valid;
    // Every permutation of each level's non-unit loops.
    std::vector<std::vector<std::array<int8_t, kNumDims>>> perms(L);
    for (int l = 0; l < L; ++l) {
      std::vector<int8_t> nonunit, unit;
      for (int d = 0; d < kNumDims; ++d) (m.levels[l].temporal[d] > 1 ? nonunit : unit).push_back(static_cast<int8_t>(d));
      do {
        std::array<int8_t, kNumDims> o{};
        int k = 0;
        for (int8_t d : unit) o[k++] = d;
        for (int8_t d : nonunit) o[k++] = d;
        perms[l].push_back(o);
      } while (std::next_permutation(nonunit.begin(), nonunit.end()));
    }
    std::vector<size_t> op(L, 0);
    while (feasible) {
      for (int l = 0; l < L; ++l) m.levels[l].order = perms[l][op[l]];
      if (!c || satisfies(*c, m, p, a, nullptr)) {
        const Cost cost = evaluate(p, a, m);
        if (cost.valid) {
          ++out.valid;
          out.best = std::min(out.best, objective_value(cost, obj));
        }
      }
      int l = 0;
      for (; l < L; ++l) {
        if (++op[l] < perms[l].size()) break;
        op[l] = 0;
      }
      if (l == L) break;
    }
    int d = 0;
    for (; d < kNumDims; ++d) {
      if (++pick[d] < per_dim[d].size()) break;
      pick[d] = 0;
    }
    if (d == kNumDims) break;
  }
  return out;
}

SearchResult run(const Problem& p, const HierarchyConfig& a, const MappingConstraints& c, SearchMethod method,
                 Objective obj = Objective::edp, int threads = 1, uint64_t seed = 1, int64_t budget = 0) {
  SearchOptions o;
  o.method = method;
  o.objective = obj;
  o.threads = threads;
  o.seed = seed;
  o.budget = budget;
  return search_mappings(p, a, c, o);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("search: exhaustive equals brute force over every mapping") {
  const HierarchyConfig a = small_arch();
  const MappingConstraints none;
  struct Case {
    const char* name;
    Problem p;
  };
  Problem strided = conv(2, 1, 3, 3, 2, 2);
  strided.stride_h = 2;
  Problem gemm;
  gemm.is_gemm = true;
  gemm.bound[kDimP] = 4;  // M
  gemm.bound[kDimK] = 4;  // N
  gemm.bound[kDimC] = 2;  // K
  const Case cases[] = {{"conv K2 C2 P4 R3", conv(2, 2, 4, 3)}, {"strided conv with Q and S", strided}, {"gemm 4x4x2", gemm}};
  for (const Case& tc : cases) {
    for (Objective obj : {Objective::edp, Objective::energy, Objective::latency}) {
      CAPTURE(tc.name);
      CAPTURE(std::string(name_of(obj)));
      const Brute brute = brute_force(tc.p, a, nullptr, obj);
      REQUIRE(brute.valid > 0);
      const SearchResult ex = run(tc.p, a, none, SearchMethod::exhaustive, obj);
      REQUIRE(ex.found);
      CHECK(ex.method_used == SearchMethod::exhaustive);
      CHECK(objective_value(ex.cost, obj) == doctest::Approx(brute.best).epsilon(1e-12));
      // The reported cost is the cost of the reported mapping, which is valid.
      MappingIssue issue;
      CHECK(check_mapping(tc.p, a, ex.best, &issue));
      CHECK(evaluate(tc.p, a, ex.best).edp() == ex.cost.edp());
      // Equivalent and dominated orders are pruned: far fewer candidates than brute force.
      CHECK(ex.valid < brute.valid);
    }
  }
}

TEST_CASE("search: exhaustive equals brute force under dataflow constraints") {
  const HierarchyConfig a = small_arch();
  const Problem p = conv(2, 2, 4, 3);
  for (const char* df : {"ws", "is", "os", "rs"}) {
    CAPTURE(df);
    const MappingConstraints c = constraints_for(df, p, a, "small.json");
    const Brute brute = brute_force(p, a, &c, Objective::edp);
    REQUIRE(brute.valid > 0);
    const SearchResult ex = run(p, a, c, SearchMethod::exhaustive);
    REQUIRE(ex.found);
    CHECK(ex.cost.edp() == doctest::Approx(brute.best).epsilon(1e-12));
    std::string why;
    CHECK_MESSAGE(satisfies(c, ex.best, p, a, &why), why);
  }
}

TEST_CASE("search: random and anneal find valid mappings and never beat exhaustive") {
  const HierarchyConfig a = small_arch();
  for (const char* df : {"none", "ws", "rs"}) {
    CAPTURE(df);
    const Problem p = conv(4, 4, 4, 3, 2);
    const MappingConstraints c = constraints_for(df, p, a, "");
    const SearchResult ex = run(p, a, c, SearchMethod::exhaustive);
    REQUIRE(ex.found);
    for (SearchMethod m : {SearchMethod::random, SearchMethod::anneal}) {
      CAPTURE(std::string(name_of(m)));
      const SearchResult r = run(p, a, c, m, Objective::edp, 1, 7, 4000);
      REQUIRE(r.found);
      CHECK(r.method_used == m);
      CHECK(r.valid > 0);
      CHECK(r.evaluated <= 4000 + 1);  // the budget (the start-up sample may add one)
      CHECK(check_mapping(p, a, r.best, nullptr));
      CHECK(satisfies(c, r.best, p, a, nullptr));
      CHECK(r.cost.edp() >= ex.cost.edp() * (1 - 1e-12));
    }
    // On a space this small the annealer's polish reaches the optimum.
    const SearchResult an = run(p, a, c, SearchMethod::anneal, Objective::edp, 1, 3, 20000);
    CHECK(an.cost.edp() == doctest::Approx(ex.cost.edp()).epsilon(1e-9));
  }
}

TEST_CASE("search: same seed gives identical results whatever the thread count") {
  const HierarchyConfig a = small_arch();
  const Problem p = conv(4, 4, 4, 3, 2);
  const MappingConstraints c;
  for (SearchMethod m : {SearchMethod::exhaustive, SearchMethod::random, SearchMethod::anneal}) {
    CAPTURE(std::string(name_of(m)));
    const SearchResult one = run(p, a, c, m, Objective::edp, 1, 42, 3000);
    const SearchResult two = run(p, a, c, m, Objective::edp, 2, 42, 3000);
    const SearchResult three = run(p, a, c, m, Objective::edp, 3, 42, 3000);
    REQUIRE(one.found);
    CHECK(one.best == two.best);
    CHECK(one.best == three.best);
    CHECK(one.cost.edp() == two.cost.edp());
    CHECK(one.cost.edp() == three.cost.edp());
    CHECK(one.evaluated == two.evaluated);
    CHECK(one.valid == three.valid);
    CHECK(one.rejections == two.rejections);
    if (m == SearchMethod::random) {
      const SearchResult other = run(p, a, c, m, Objective::edp, 1, 43, 3000);
      CHECK(other.evaluated == one.evaluated);  // the budget, whatever the stream
    }
  }
}

TEST_CASE("search: automatic picks exhaustive for a small space") {
  const HierarchyConfig a = small_arch();
  const Problem p = conv(2, 2, 4, 3);
  const SearchResult r = run(p, a, MappingConstraints{}, SearchMethod::automatic);
  REQUIRE(r.found);
  CHECK(r.method_used == SearchMethod::exhaustive);
}

TEST_CASE("search: an infeasible layer reports found=false with reasons") {
  // A 2-byte register file cannot hold one word of each of three operands.
  const HierarchyConfig a = small_arch(2);
  const Problem p = conv(2, 2, 4, 3);
  for (SearchMethod m : {SearchMethod::exhaustive, SearchMethod::random, SearchMethod::anneal, SearchMethod::automatic}) {
    CAPTURE(std::string(name_of(m)));
    const SearchResult r = run(p, a, MappingConstraints{}, m, Objective::edp, 2, 1, 500);
    CHECK_FALSE(r.found);
    CHECK(r.valid == 0);
    CHECK(r.evaluated > 0);
    REQUIRE_FALSE(r.rejections.empty());
    CHECK(contains(r.rejections[0].first, "RF"));
    CHECK(contains(r.rejections[0].first, "capacity"));
    CHECK(r.rejections[0].second > 0);
  }
  // A whole dimension that cannot fit its slot: the space is empty before any search.
  const Problem wide = conv(2, 2, 4, 5);  // R = 5 > 4 rows
  const MappingConstraints rs = constraints_for("rs", wide, small_arch(), "small.json");
  const SearchResult r = run(wide, small_arch(), rs, SearchMethod::automatic);
  CHECK_FALSE(r.found);
  REQUIRE_FALSE(r.rejections.empty());
  CHECK(contains(r.rejections[0].first, "Buffer"));
  CHECK(contains(r.rejections[0].first, "R (5)"));
}

TEST_CASE("search: loop-order candidates, one per reuse class") {
  OrderTable all, kept;
  all.build(false);
  kept.build(true);
  const DimMask every = kAllDims;
  const auto& reps = all.orders(every, -1);
  // Each representative has a distinct signature; every permutation maps to one of them.
  std::vector<uint32_t> sigs;
  for (const LoopOrder& o : reps) sigs.push_back(reuse_signature(o.data(), kNumDims));
  std::sort(sigs.begin(), sigs.end());
  CHECK(std::adjacent_find(sigs.begin(), sigs.end()) == sigs.end());
  CHECK(reps.size() == 30);  // N P Q | C R S | K: 12 + 12 + 6 innermost classes
  CHECK(kept.orders(every, -1).size() == 8);  // P|Q, R|S innermost; K then P|Q|R|S
  // Stationary weights: the innermost loop is N, P or Q.
  for (const LoopOrder& o : kept.orders(every, kWeights)) CHECK_FALSE(relevant(kWeights, o[kNumDims - 1]));
  CHECK(kept.orders(dim_bit(kDimK), kWeights).empty());
  CHECK(kept.orders(0, -1).size() == 1);
}

TEST_CASE("constraint: each dataflow accepts a mapping obeying it and rejects one breaking it") {
  const HierarchyConfig a = small_arch();
  const Problem p = conv(2, 2, 4, 3);
  auto base = [] {
    Mapping m;
    m.num_levels = 3;
    return m;
  };
  auto check_valid = [&](const Mapping& m) {
    MappingIssue issue;
    CHECK_MESSAGE(check_mapping(p, a, m, &issue), issue.what);
  };
  std::string why;

  SUBCASE("ws") {
    const MappingConstraints c = constraints_for("ws", p, a, "small.json");
    CHECK(c.array_level == 1);
    CHECK(c.stationary == kWeights);
    Mapping m = base();
    m.levels[1].spatial_y[kDimC] = 2;
    m.levels[1].spatial_x[kDimK] = 2;
    m.levels[1].temporal[kDimR] = 3;
    m.levels[1].temporal[kDimP] = 4;
    m.levels[1].order = loop_order({kDimR, kDimP});  // P innermost: weights stay
    check_valid(m);
    CHECK_MESSAGE(satisfies(c, m, p, a, &why), why);
    Mapping moving = m;
    moving.levels[1].order = loop_order({kDimP, kDimR});  // R innermost: new weights each step
    CHECK_FALSE(satisfies(c, moving, p, a, &why));
    CHECK(contains(why, "level Buffer"));
    CHECK(contains(why, "weights"));
    Mapping wrong_axis = m;
    std::swap(wrong_axis.levels[1].spatial_x, wrong_axis.levels[1].spatial_y);  // K on y, C on x
    CHECK_FALSE(satisfies(c, wrong_axis, p, a, &why));
    CHECK(contains(why, "level Buffer"));
    CHECK(contains(why, "spatial"));
    // No temporal loop at the array level: the innermost one above it (DRAM) decides.
    Mapping outer = base();
    outer.levels[1].spatial_y[kDimC] = 2;
    outer.levels[1].spatial_x[kDimK] = 2;
    outer.levels[0].temporal[kDimR] = 3;
    outer.levels[0].temporal[kDimP] = 4;
    outer.levels[0].order = loop_order({kDimP, kDimR});
    CHECK_FALSE(satisfies(c, outer, p, a, &why));
    CHECK(contains(why, "level DRAM"));
  }
  SUBCASE("is") {
    const MappingConstraints c = constraints_for("is", p, a, "small.json");
    CHECK(c.stationary == kInputs);
    Mapping m = base();
    m.levels[1].spatial_y[kDimR] = 3;
    m.levels[1].spatial_x[kDimP] = 4;
    m.levels[1].temporal[kDimC] = 2;
    m.levels[1].temporal[kDimK] = 2;
    m.levels[1].order = loop_order({kDimC, kDimK});  // K innermost: inputs stay
    check_valid(m);
    CHECK_MESSAGE(satisfies(c, m, p, a, &why), why);
    Mapping bad = m;
    bad.levels[1].spatial_x[kDimP] = 2;
    bad.levels[1].spatial_x[kDimK] = 2;
    bad.levels[1].temporal[kDimK] = 1;
    bad.levels[1].temporal[kDimP] = 2;
    CHECK_FALSE(satisfies(c, bad, p, a, &why));
    CHECK(contains(why, "level Buffer"));
    CHECK(contains(why, "spatial-x loop K2"));
  }
  SUBCASE("os") {
    const MappingConstraints c = constraints_for("os", p, a, "small.json");
    CHECK(c.stationary == kOutputs);
    Mapping m = base();
    m.levels[1].spatial_y[kDimP] = 4;
    m.levels[1].spatial_x[kDimK] = 2;
    m.levels[1].temporal[kDimC] = 2;
    m.levels[1].temporal[kDimR] = 3;
    m.levels[1].order = loop_order({kDimC, kDimR});  // reduction innermost: outputs stay
    check_valid(m);
    CHECK_MESSAGE(satisfies(c, m, p, a, &why), why);
    Mapping bad = m;
    bad.levels[1].spatial_y[kDimP] = 1;
    bad.levels[1].spatial_y[kDimC] = 2;
    bad.levels[1].temporal[kDimC] = 1;
    bad.levels[1].temporal[kDimP] = 4;
    bad.levels[1].order = loop_order({kDimP, kDimR});
    CHECK_FALSE(satisfies(c, bad, p, a, &why));
    CHECK(contains(why, "level Buffer"));
    CHECK(contains(why, "spatial-y loop C2"));
  }
  SUBCASE("rs") {
    const MappingConstraints c = constraints_for("rs", p, a, "small.json");
    CHECK(c.stationary == -1);
    REQUIRE(c.whole.size() == 2);
    Mapping m = base();
    m.levels[1].spatial_y[kDimR] = 3;  // filter rows down the array, whole
    m.levels[1].spatial_x[kDimP] = 4;  // output rows across it
    m.levels[2].temporal[kDimK] = 2;   // the RF holds 2 x 2 weights, 2 inputs, 2 psums
    m.levels[2].temporal[kDimC] = 2;
    check_valid(m);
    CHECK_MESSAGE(satisfies(c, m, p, a, &why), why);
    Mapping split = m;  // R over time instead of down the rows
    split.levels[1].spatial_y[kDimR] = 1;
    split.levels[1].temporal[kDimR] = 3;
    CHECK_FALSE(satisfies(c, split, p, a, &why));
    CHECK(contains(why, "level Buffer"));
    CHECK(contains(why, "all of R (3)"));
    Mapping rows_in_rf = m;  // output rows in the register file
    rows_in_rf.levels[1].spatial_x[kDimP] = 2;
    rows_in_rf.levels[2].temporal[kDimP] = 2;
    rows_in_rf.levels[2].temporal[kDimC] = 1;
    rows_in_rf.levels[1].temporal[kDimC] = 2;
    CHECK_FALSE(satisfies(c, rows_in_rf, p, a, &why));
    CHECK(contains(why, "level RF"));
    CHECK(contains(why, "temporal loop P2"));
  }
  SUBCASE("a stationary operand every loop indexes") {
    // Fully connected at batch 1 under ws: every loop indexes the weights, so no order
    // keeps a weight tile in the PEs; the rule is dropped instead of forbidding everything.
    Problem fc;
    fc.bound[kDimK] = 8;
    fc.bound[kDimC] = 8;
    const MappingConstraints c = constraints_for("ws", fc, a, "small.json");
    CHECK(c.stationary == -1);
    CHECK(c.spatial_x_allowed[1] == dim_bit(kDimK));
    const SearchResult r = run(fc, a, c, SearchMethod::automatic);
    CHECK(r.found);
    CHECK(constraints_for("ws", p, a, "").stationary == kWeights);  // P > 1: the rule applies
  }
  SUBCASE("none and unknown names") {
    CHECK(constraints_for("none", p, a, "").name.empty());
    CHECK(constraints_for("", p, a, "").name.empty());
    CHECK(satisfies(constraints_for("none", p, a, ""), outermost_mapping(p, a), p, a, &why));
    try {
      constraints_for("xs", p, a, "small.json");
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(e.field() == "dataflow");
      CHECK(e.file() == "small.json");
      CHECK(contains(e.expected(), "ws, is, os, rs, none"));
    }
    HierarchyConfig flat = a;  // no fan-out anywhere: no PE array to constrain
    flat.levels[1].fanout = Fanout{};
    CHECK_THROWS_AS(constraints_for("ws", p, flat, "flat.json"), InputError);
    CHECK_NOTHROW(constraints_for("none", p, flat, "flat.json"));
  }
}
