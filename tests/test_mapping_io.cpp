// Mapping I/O: the JSON form round-trips, hand-written files with partial orders are
// completed the documented way, every malformed file is rejected naming the file, the
// JSON path and the rule, and the loop-nest printout shows the loops that iterate.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>

#include "mapper/mapping.h"
#include "mapper/network_mapper.h"
#include "sim/error.h"

using namespace loom;

namespace {

// A three-level hierarchy built in memory (no file, no energy table): the mapping code
// only reads level names and the level count.
HierarchyConfig three_levels() {
  HierarchyConfig a;
  a.name = "test_hier";
  for (const char* n : {"DRAM", "GLB", "RF"}) {
    StorageLevel l;
    l.name = n;
    a.levels.push_back(l);
  }
  a.levels[0].kind = LevelKind::dram;
  a.levels[0].unbounded = true;
  a.levels[1].fanout.x = 14;
  a.levels[1].fanout.y = 12;
  return a;
}

Problem conv_problem() {
  Problem p;
  p.layer_name = "conv";
  p.bound = {2, 64, 32, 28, 28, 3, 3};  // N K C P Q R S
  p.stride_h = p.stride_w = 1;
  return p;
}

Problem gemm_problem() {
  Problem p;
  p.layer_name = "fc";
  p.is_gemm = true;
  p.bound = {1, 96, 120, 36, 1, 1, 1};  // N on K, K on C, M on P
  return p;
}

// Splits every bound into random factors over all levels and slots, and shuffles orders.
Mapping random_mapping(const Problem& p, const HierarchyConfig& a, std::mt19937_64& rng) {
  Mapping m;
  m.num_levels = a.num_levels();
  for (int d = 0; d < kNumDims; ++d) {
    int64_t left = p.bound[d];
    for (int64_t f = 2; left > 1;) {
      if (left % f) {
        ++f;
        continue;
      }
      left /= f;
      LevelMapping& lm = m.levels[rng() % m.num_levels];
      DimArray* slots[] = {&lm.temporal, &lm.spatial_x, &lm.spatial_y};
      (*slots[rng() % 3])[d] *= f;
    }
  }
  for (int l = 0; l < m.num_levels; ++l) std::shuffle(m.levels[l].order.begin(), m.levels[l].order.end(), rng);
  return m;
}

int64_t product(const Mapping& m, int d) { return m.extent_below(0, d); }

std::string error_of(const Json& j, const Problem& p, const HierarchyConfig& a) {
  try {
    parse_mapping_json(j, "pinned.json", p, a);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("mapping: outermost mapping and extents") {
  const HierarchyConfig a = three_levels();
  const Problem p = conv_problem();
  const Mapping m = outermost_mapping(p, a);
  CHECK(m.num_levels == 3);
  for (int d = 0; d < kNumDims; ++d) {
    CHECK(m.extent_below(0, d) == p.bound[d]);
    CHECK(m.extent_below(1, d) == 1);
    CHECK(m.levels[0].order[d] == d);
  }
  Mapping n = m;
  n.levels[0].temporal[kDimK] = 8;
  n.levels[1].spatial_x[kDimK] = 4;
  n.levels[2].temporal[kDimK] = 2;
  CHECK(n.extent_below(0, kDimK) == 64);
  CHECK(n.extent_below(1, kDimK) == 8);
  CHECK(n.extent_below(2, kDimK) == 2);
  CHECK(!(n == m));
}

TEST_CASE("mapping: equality ignores where factor-1 loops sit in the order") {
  const HierarchyConfig a = three_levels();
  Mapping m = outermost_mapping(conv_problem(), a);
  Mapping n = m;
  std::swap(n.levels[1].order[0], n.levels[1].order[6]);  // level 1 has only unit loops
  CHECK(m == n);
  std::swap(n.levels[0].order[1], n.levels[0].order[2]);  // K and C both iterate at level 0
  CHECK(!(m == n));
}

TEST_CASE("mapping JSON round-trips random mappings") {
  const HierarchyConfig a = three_levels();
  std::mt19937_64 rng(12345);
  for (const Problem& p : {conv_problem(), gemm_problem()}) {
    for (int i = 0; i < 200; ++i) {
      const Mapping m = random_mapping(p, a, rng);
      for (int d = 0; d < kNumDims; ++d) REQUIRE(product(m, d) == p.bound[d]);
      const Json j = mapping_to_json(m, p, a);
      // Through text too, as a pinned file would go.
      const Mapping back = parse_mapping_json(Json::parse(j.dump()), "round.json", p, a);
      CHECK(back == m);
      for (int l = 0; l < m.num_levels; ++l) CHECK(back.levels[l].order == m.levels[l].order);
      CHECK(mapping_to_json(back, p, a) == j);
    }
  }
}

TEST_CASE("mapping JSON: GEMMs use M, N, K and factors of 1 are omitted") {
  const HierarchyConfig a = three_levels();
  const Problem p = gemm_problem();
  Mapping m = outermost_mapping(p, a);
  m.levels[0].temporal[kDimP] = 9;
  m.levels[1].spatial_x[kDimP] = 4;
  const Json j = mapping_to_json(m, p, a);
  CHECK(j.at("schema") == "loom-mapping/1");
  REQUIRE(j.at("levels").size() == 3);
  CHECK(j.at("levels")[0].at("level") == "DRAM");
  CHECK(j.at("levels")[0].at("temporal") == Json({{"M", 9}, {"N", 96}, {"K", 120}}));
  CHECK(j.at("levels")[1].at("spatial_x") == Json({{"M", 4}}));
  CHECK(j.at("levels")[2].at("temporal").empty());
}

TEST_CASE("mapping JSON: a partial order is completed innermost in the default order") {
  const HierarchyConfig a = three_levels();
  const Problem p = conv_problem();
  const Json j = Json::parse(R"({"levels": [
      {"level": "DRAM", "temporal": {"N": 2, "K": 64, "C": 32, "P": 28, "Q": 28, "R": 3, "S": 3}, "order": "QP"},
      {"level": "GLB", "order": ["S", "R"]},
      {"level": "RF"}]})");
  const Mapping m = parse_mapping_json(j, "pinned.json", p, a);
  const std::array<int8_t, kNumDims> dram = {kDimQ, kDimP, kDimN, kDimK, kDimC, kDimR, kDimS};
  const std::array<int8_t, kNumDims> glb = {kDimS, kDimR, kDimN, kDimK, kDimC, kDimP, kDimQ};
  CHECK(m.levels[0].order == dram);
  CHECK(m.levels[1].order == glb);
  CHECK(m.levels[2].order == std::array<int8_t, kNumDims>{0, 1, 2, 3, 4, 5, 6});
}

TEST_CASE("mapping JSON: bad files name the file, the JSON path and the rule") {
  const HierarchyConfig a = three_levels();
  const Problem p = conv_problem();
  const Json good = mapping_to_json(outermost_mapping(p, a), p, a);

  SUBCASE("wrong number of levels") {
    Json j = good;
    j["levels"].erase(2);
    const std::string e = error_of(j, p, a);
    CHECK(has(e, "pinned.json: levels: expected 3 levels"));
    CHECK(has(e, "DRAM, GLB, RF"));
  }
  SUBCASE("unknown level name") {
    Json j = good;
    j["levels"][1]["level"] = "L2";
    const std::string e = error_of(j, p, a);
    CHECK(has(e, "levels[1].level"));
    CHECK(has(e, "unknown level 'L2'"));
  }
  SUBCASE("levels out of order") {
    Json j = good;
    std::swap(j["levels"][1]["level"], j["levels"][2]["level"]);
    CHECK(has(error_of(j, p, a), "level 'RF' is out of place: expected 'GLB'"));
  }
  SUBCASE("unknown loop name in factors") {
    Json j = good;
    j["levels"][2]["spatial_y"] = {{"M", 2}};  // M is a GEMM name; this is a convolution
    const std::string e = error_of(j, p, a);
    CHECK(has(e, "levels[2].spatial_y.M"));
    CHECK(has(e, "unknown loop 'M'"));
    CHECK(has(e, "N K C P Q R S"));
  }
  SUBCASE("unknown loop name in the order") {
    Json j = good;
    j["levels"][0]["order"] = "KX";
    CHECK(has(error_of(j, p, a), "levels[0].order: unknown loop 'X'"));
  }
  SUBCASE("loop listed twice in the order") {
    Json j = good;
    j["levels"][0]["order"] = Json::array({"K", "P", "K"});
    CHECK(has(error_of(j, p, a), "loop 'K' is listed twice"));
  }
  SUBCASE("factor that is not a positive whole number") {
    Json j = good;
    j["levels"][1]["temporal"] = {{"K", 0}};
    CHECK(has(error_of(j, p, a), "levels[1].temporal.K: expected a positive whole number"));
    j["levels"][1]["temporal"] = {{"K", 1.5}};
    CHECK(has(error_of(j, p, a), "levels[1].temporal.K: expected a whole number"));
  }
  SUBCASE("factors that multiply beyond the bound") {
    Json j = good;
    j["levels"][2]["temporal"] = {{"R", 3}};  // R is 3 at DRAM already
    const std::string e = error_of(j, p, a);
    CHECK(has(e, "levels[2].temporal.R"));
    CHECK(has(e, "R = 3"));
    j["levels"][2]["temporal"] = {{"R", int64_t{1} << 62}};  // no overflow on the way
    CHECK(has(error_of(j, p, a), "levels[2].temporal.R"));
  }
  SUBCASE("unknown keys at the top and in a level") {
    Json j = good;
    j["level"] = 1;
    CHECK(has(error_of(j, p, a), "pinned.json: level: unknown key"));
    j = good;
    j["levels"][0]["spatial"] = Json::object();
    CHECK(has(error_of(j, p, a), "levels[0].spatial: unknown key"));
  }
  SUBCASE("wrong schema") {
    Json j = good;
    j["schema"] = "loom-mapping/9";
    CHECK(has(error_of(j, p, a), "schema"));
  }
}

TEST_CASE("mapping: the loop nest lists every iterating loop under its level") {
  const HierarchyConfig a = three_levels();
  const Problem p = conv_problem();
  Mapping m = outermost_mapping(p, a);
  m.levels[0].temporal = {2, 4, 8, 7, 28, 1, 1};
  m.levels[1].spatial_y = {1, 1, 1, 1, 1, 3, 1};
  m.levels[1].spatial_x = {1, 1, 1, 4, 1, 1, 1};
  m.levels[1].temporal = {1, 16, 4, 1, 1, 1, 1};
  m.levels[1].order = {kDimC, kDimK, kDimN, kDimP, kDimQ, kDimR, kDimS};
  m.levels[2].temporal = {1, 1, 1, 1, 1, 1, 3};
  const std::string nest = format_loop_nest(m, p, a);
  INFO(nest);
  CHECK(has(nest, "for K0 in [0, 4)"));
  CHECK(has(nest, "for Q0 in [0, 28)"));
  CHECK(has(nest, "spatial-y"));
  CHECK(has(nest, "for R1y in [0, 3)"));
  CHECK(has(nest, "spatial-x"));
  CHECK(has(nest, "for P1x in [0, 4)"));
  CHECK(has(nest, "for S2 in [0, 3)"));
  CHECK(!has(nest, "R0"));  // unit loops are not printed
  // Loops appear outermost first: level order, then the level's own order (C before K).
  CHECK(nest.find("C1 in") < nest.find("K1 in"));
  CHECK(nest.find("Q0 in") < nest.find("C1 in"));
  CHECK(nest.find("K1 in") < nest.find("R1y in"));
  // Each line starts with its level's name.
  CHECK(nest.rfind("DRAM", 0) == 0);
  CHECK(has(nest, "\nRF "));
  CHECK(has(nest, "\nMAC "));

  const Problem g = gemm_problem();
  Mapping mg = outermost_mapping(g, a);
  const std::string gnest = format_loop_nest(mg, g, a);
  CHECK(has(gnest, "for M0 in [0, 36)"));
  CHECK(has(gnest, "for N0 in [0, 96)"));
  CHECK(has(gnest, "for K0 in [0, 120)"));
}

TEST_CASE("mapping: map_network searches each distinct layer shape once") {
  const HierarchyConfig arch = load_hierarchy_config(std::string(LOOM_SOURCE_DIR) + "/configs/eyeriss_like_rs.json");
  const Network net = parse_network_json(Json::parse(R"({"name": "rep", "layers": [
      {"name": "a", "type": "conv2d", "input_hw": 8, "in_channels": 4, "out_channels": 8, "kernel": 3, "padding": 1},
      {"name": "b", "type": "conv2d", "input_hw": 8, "in_channels": 8, "out_channels": 8, "kernel": 3, "padding": 1},
      {"name": "c", "type": "conv2d", "input_hw": 8, "in_channels": 4, "out_channels": 8, "kernel": 3, "padding": 1},
      {"name": "d", "type": "conv2d", "input_hw": 8, "in_channels": 4, "out_channels": 8, "kernel": 3, "padding": 1,
       "stride": 2}]})"),
                                         "rep.json");
  SearchOptions options;
  options.threads = 2;
  std::vector<std::pair<size_t, size_t>> progress;
  const std::vector<LayerMapping> out =
      map_network(net, arch, "rs", options, [&](size_t done, size_t total) { progress.emplace_back(done, total); });
  REQUIRE(out.size() == 4);
  CHECK(progress.size() == 4);
  CHECK(progress.back() == std::make_pair<size_t, size_t>(4, 4));
  CHECK(!out[0].reused);
  CHECK(!out[1].reused);  // more input channels: another shape
  CHECK(out[2].reused);   // same shape as a
  CHECK(out[2].searched_as == 0);
  CHECK(!out[3].reused);  // same bounds as a but stride 2: another shape (and other bounds)
  CHECK(out[2].problem.layer_name == "c");
  CHECK(out[2].result.best == out[0].result.best);
  CHECK(out[2].result.cost.energy_pj == out[0].result.cost.energy_pj);
  for (const LayerMapping& lm : out) {
    CHECK(lm.result.found);
    MappingIssue issue;
    CHECK_MESSAGE(check_mapping(lm.problem, arch, lm.result.best, &issue), issue.what);
  }

  // Same bounds, different stride: not the same shape.
  Problem p = out[0].problem, q = p;
  q.stride_h = 2;
  CHECK(same_shape(p, p));
  CHECK(!same_shape(p, q));
}

TEST_CASE("mapping: a layer without any valid mapping is an input error naming it and the reason") {
  HierarchyConfig arch = load_hierarchy_config(std::string(LOOM_SOURCE_DIR) + "/configs/eyeriss_like_rs.json");
  arch.levels[1].fanout.y = 2;  // row-stationary needs all of R on the array's rows
  arch.source_file = "two_rows.json";
  const Network net = parse_network_json(Json::parse(R"({"name": "n", "layers": [
      {"name": "conv5x5", "type": "conv2d", "input_hw": 12, "in_channels": 2, "out_channels": 4, "kernel": 5}]})"),
                                         "n.json");
  try {
    map_network(net, arch, "rs", SearchOptions{}, nullptr);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(has(what, "two_rows.json: layer conv5x5: "));
    CHECK(has(what, "dataflow rs"));
    CHECK(has(what, "R (5)"));
  }
}
