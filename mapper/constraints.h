// Dataflows as constraints on mappings, not as code paths: weight-, input-, output- and
// row-stationary each restrict which loops may be unrolled on the array's x and y axes,
// which loops may sit at which level, and which operand must stay in the PEs. The cost
// model and the search are the same for all of them. Rules: docs/mapping.md.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "arch/hierarchy/hierarchy_config.h"
#include "mapper/mapping.h"
#include "mapper/problem.h"

namespace loom {

enum class LoopSlot { temporal, spatial_x, spatial_y };

struct MappingConstraints {
  std::string name;  // "ws", "is", "os", "rs", or "" (unconstrained)
  // Per level: dimensions allowed in its temporal loops and on its fan-out's axes.
  std::array<DimMask, kMaxLevels> temporal_allowed;
  std::array<DimMask, kMaxLevels> spatial_x_allowed, spatial_y_allowed;
  // Dimensions whose whole bound must sit in one slot (row-stationary: R on the array's y
  // axis, S in the PE register file).
  struct Whole { int level; LoopSlot slot; int dim; };
  std::vector<Whole> whole;
  // Operand that stays in the PEs while the array's innermost temporal loops run: those
  // loops (at the array level) must all be irrelevant to it. -1: none.
  int stationary = -1;
  int array_level = -1;  // level whose fan-out feeds the PEs

  // Dimensions allowed in `slot` at `level`.
  DimMask allowed(int level, LoopSlot slot) const;

  MappingConstraints() {
    temporal_allowed.fill(kAllDims);
    spatial_x_allowed.fill(kAllDims);
    spatial_y_allowed.fill(kAllDims);
  }
};

// The constraint set for a dataflow name ("" or "none": unconstrained) on this
// architecture. InputError (field "dataflow") for an unknown name or an architecture
// without a PE-array fan-out.
MappingConstraints constraints_for(const std::string& dataflow, const Problem& problem,
                                   const HierarchyConfig& arch, const std::string& file);

// The innermost temporal loop with a factor > 1 at `level` or above (walking outward across
// levels): the loop whose every iteration refills the tiles below `level`. Returns its
// dimension (and its level in *at_level), or -1 when every loop from there up has factor 1.
int innermost_temporal_loop_above(const Mapping& m, int level, int* at_level = nullptr);

// True when `m` obeys `c`; otherwise *why says which rule it breaks, naming the level.
bool satisfies(const MappingConstraints& c, const Mapping& m, const Problem& problem,
               const HierarchyConfig& arch, std::string* why);

}  // namespace loom
