// A mapping: how one layer's loop nest is tiled and ordered over an architecture's
// storage levels and unrolled over its fan-outs. Level i owns temporal loops (a factor per
// dimension and an order, outermost first) and, below them, the spatial loops across its
// fan-out (factors on the mesh x and y axes). The nest reads, outermost first:
//   level 0 temporal, level 0 spatial, level 1 temporal, level 1 spatial, ..., MACs.
// Every dimension's factors multiply to its bound exactly. Printable as a loop nest and
// round-trips through JSON (docs/mapping.md), so a user can pin one.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "arch/hierarchy/hierarchy_config.h"
#include "mapper/problem.h"
#include "sim/json_reader.h"

namespace loom {

struct LevelMapping {
  DimArray temporal{1, 1, 1, 1, 1, 1, 1};
  std::array<int8_t, kNumDims> order{0, 1, 2, 3, 4, 5, 6};  // dims, outermost first
  DimArray spatial_x{1, 1, 1, 1, 1, 1, 1};
  DimArray spatial_y{1, 1, 1, 1, 1, 1, 1};
};

struct Mapping {
  int num_levels = 0;
  std::array<LevelMapping, kMaxLevels> levels{};

  // Product of all factors of `dim` at levels >= level (the extent a level-`level` tile spans).
  int64_t extent_below(int level, int dim) const;
  bool operator==(const Mapping& o) const;
};

// A loop order: the `outer` dims outermost first (each at most once), then every other
// dim in the default order N K C P Q R S.
std::array<int8_t, kNumDims> loop_order(std::initializer_list<int> outer);
std::array<int8_t, kNumDims> loop_order(const std::vector<int>& outer);

// The trivial mapping: every loop at the outermost level, nothing unrolled.
Mapping outermost_mapping(const Problem& problem, const HierarchyConfig& arch);

// Readable loop nest with the level names, e.g.
//   DRAM        for K2 in [0,2)  for P7 in [0,7)
//   GLB         ...   spatial-y: R3 C4   spatial-x: P14
std::string format_loop_nest(const Mapping& m, const Problem& problem, const HierarchyConfig& arch);

// JSON form (docs/mapping.md): {"levels":[{"level":"DRAM","temporal":{"K":2,"P":7},
// "order":"KP","spatial_x":{...},"spatial_y":{...}}, ...]}. Factors of 1 are omitted.
Json mapping_to_json(const Mapping& m, const Problem& problem, const HierarchyConfig& arch);
// Reads a pinned mapping; InputError names the file and field on unknown levels or loop
// names, wrong level count, or factors that are not positive integers. Coverage and
// capacity are checked by check_mapping (mapper/cost_model.h).
Mapping parse_mapping_json(const Json& json, const std::string& file, const Problem& problem,
                           const HierarchyConfig& arch);

}  // namespace loom
