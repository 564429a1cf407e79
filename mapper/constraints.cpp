// Dataflows as constraints (docs/mapping.md, "Dataflows as constraints"). Each named
// dataflow is only a MappingConstraints value: which loops may be unrolled on the PE
// array's axes, which loops may sit in the levels below it, which dimensions must sit whole
// in one slot and which operand must stay in the PEs. The search builds its map space from
// these masks, so no dataflow has a code path of its own.
#include "mapper/constraints.h"

#include "sim/error.h"

namespace loom {

namespace {

constexpr DimMask dims(std::initializer_list<int> ds) {
  DimMask m = 0;
  for (int d : ds) m = static_cast<DimMask>(m | dim_bit(d));
  return m;
}

const char* slot_name(LoopSlot s) {
  switch (s) {
    case LoopSlot::temporal: return "temporal";
    case LoopSlot::spatial_x: return "spatial-x";
    case LoopSlot::spatial_y: return "spatial-y";
  }
  return "?";
}

const DimArray& slot_factors(const LevelMapping& lm, LoopSlot s) {
  switch (s) {
    case LoopSlot::spatial_x: return lm.spatial_x;
    case LoopSlot::spatial_y: return lm.spatial_y;
    case LoopSlot::temporal: break;
  }
  return lm.temporal;
}

std::string mask_names(DimMask mask, const Problem& problem) {
  std::string s;
  for (int d = 0; d < kNumDims; ++d)
    if (mask & dim_bit(d)) {
      if (!s.empty()) s += ' ';
      s += problem.dim_name(d);
    }
  return s.empty() ? "none" : s;
}

std::string level_name(const HierarchyConfig& arch, int level) {
  if (level >= 0 && level < arch.num_levels()) return arch.levels[level].name;
  std::string s = "#";  // (built in two steps: g++ 12 warns falsely on "#" + to_string)
  s += std::to_string(level);
  return s;
}

}  // namespace

DimMask MappingConstraints::allowed(int level, LoopSlot slot) const {
  switch (slot) {
    case LoopSlot::temporal: return temporal_allowed[level];
    case LoopSlot::spatial_x: return spatial_x_allowed[level];
    case LoopSlot::spatial_y: return spatial_y_allowed[level];
  }
  return 0;
}

int innermost_temporal_loop_above(const Mapping& m, int level, int* at_level) {
  for (int l = level; l >= 0; --l) {
    const LevelMapping& lm = m.levels[l];
    for (int i = kNumDims - 1; i >= 0; --i) {
      const int d = lm.order[i];
      if (lm.temporal[d] > 1) {
        if (at_level) *at_level = l;
        return d;
      }
    }
  }
  if (at_level) *at_level = -1;
  return -1;
}

MappingConstraints constraints_for(const std::string& dataflow, const Problem& problem,
                                   const HierarchyConfig& arch, const std::string& file) {
  MappingConstraints c;
  c.array_level = arch.array_level();
  if (dataflow.empty() || dataflow == "none") return c;
  if (dataflow != "ws" && dataflow != "is" && dataflow != "os" && dataflow != "rs")
    throw InputError(file, "dataflow",
                     "one of ws, is, os, rs, none (got '" + dataflow + "')");
  if (c.array_level < 0)
    throw InputError(file, "dataflow",
                     "'" + dataflow + "' constrains the PE array, but architecture '" + arch.name +
                         "' has no fan-out to a PE array; use none");
  const int a = c.array_level;
  c.name = dataflow;
  if (dataflow == "ws") {
    // Weight stationary: reduction loops down the rows (partial sums flow down a column),
    // output channels across the columns; weights stay in the PEs.
    c.spatial_y_allowed[a] = dims({kDimC, kDimR, kDimS});
    c.spatial_x_allowed[a] = dims({kDimK});
    c.stationary = kWeights;
  } else if (dataflow == "is") {
    c.spatial_y_allowed[a] = dims({kDimC, kDimR, kDimS});
    c.spatial_x_allowed[a] = dims({kDimN, kDimP, kDimQ});
    c.stationary = kInputs;
  } else if (dataflow == "os") {
    c.spatial_y_allowed[a] = dims({kDimN, kDimP, kDimQ});
    c.spatial_x_allowed[a] = dims({kDimK});
    c.stationary = kOutputs;
  } else {
    // Row stationary (Chen et al., ISCA 2016): a PE convolves one filter row (S, whole, in
    // its register file) with one input row, sliding along Q; the filter rows R sit whole
    // down the array's rows, so the psums of one output row are summed vertically; output
    // rows P (and images N) go across the columns, with C and K folded onto either axis
    // when the array is larger than the filter. Below the array a PE only ever holds rows
    // of one output row: no P, R or N loops there.
    if (a + 1 >= arch.num_levels())
      throw InputError(file, "dataflow",
                       "'rs' needs a storage level (the PE register file) below the level '" +
                           level_name(arch, a) + "' whose fan-out feeds the PE array");
    c.spatial_y_allowed[a] = dims({kDimR, kDimC, kDimK});
    c.spatial_x_allowed[a] = dims({kDimP, kDimN, kDimK});
    c.whole.push_back({a, LoopSlot::spatial_y, kDimR});
    c.temporal_allowed[a + 1] = dims({kDimS, kDimQ, kDimC, kDimK});
    c.whole.push_back({a + 1, LoopSlot::temporal, kDimS});
    const DimMask not_below = static_cast<DimMask>(kAllDims & ~dims({kDimP, kDimR, kDimN}));
    for (int l = a + 1; l < arch.num_levels() && l < kMaxLevels; ++l)
      c.temporal_allowed[l] = static_cast<DimMask>(c.temporal_allowed[l] & not_below);
  }
  if (c.stationary >= 0) {
    // When every loop of this layer indexes the stationary operand (a fully connected layer
    // at batch 1 under ws: no N, P or Q), each PE tile of it serves one step whatever the
    // order; the rule could only forbid every mapping, so it does not apply.
    bool can_stay = false;
    for (int d = 0; d < kNumDims; ++d) can_stay = can_stay || (problem.bound[d] > 1 && !relevant(c.stationary, d));
    if (!can_stay) c.stationary = -1;
  }
  return c;
}

bool satisfies(const MappingConstraints& c, const Mapping& m, const Problem& problem,
               const HierarchyConfig& arch, std::string* why) {
  const char* df = c.name.empty() ? "the constraints" : c.name.c_str();
  auto fail = [&](int level, const std::string& what) {
    if (why) *why = "level " + level_name(arch, level) + ": " + what;
    return false;
  };
  for (int l = 0; l < m.num_levels && l < kMaxLevels; ++l) {
    for (LoopSlot s : {LoopSlot::temporal, LoopSlot::spatial_x, LoopSlot::spatial_y}) {
      const DimArray& f = slot_factors(m.levels[l], s);
      const DimMask ok = c.allowed(l, s);
      for (int d = 0; d < kNumDims; ++d)
        if (f[d] > 1 && !(ok & dim_bit(d)))
          return fail(l, std::string(slot_name(s)) + " loop " + problem.dim_name(d) +
                             std::to_string(f[d]) + " is not allowed by " + df + " (allowed: " +
                             mask_names(ok, problem) + ")");
    }
  }
  for (const MappingConstraints::Whole& w : c.whole) {
    if (w.level >= m.num_levels) return fail(w.level, "level missing from the mapping");
    const int64_t got = slot_factors(m.levels[w.level], w.slot)[w.dim];
    if (got != problem.bound[w.dim])
      return fail(w.level, std::string(df) + " needs all of " + problem.dim_name(w.dim) + " (" +
                               std::to_string(problem.bound[w.dim]) + ") " + slot_name(w.slot) +
                               " here, found " + std::to_string(got));
  }
  if (c.stationary >= 0 && c.array_level >= 0 && c.array_level < m.num_levels) {
    // The PE tile is refilled on every iteration of the innermost non-unit temporal loop
    // above it; for the stationary operand to stay put that loop must not index it.
    int at = -1;
    const int d = innermost_temporal_loop_above(m, c.array_level, &at);
    if (d >= 0 && relevant(c.stationary, d)) {
      return fail(at, std::string("innermost temporal loop ") + problem.dim_name(d) +
                          " above the PE array indexes the " + operand_name(c.stationary) +
                          ", which " + df + " keeps stationary in the PEs");
    }
  }
  if (why) why->clear();
  return true;
}

}  // namespace loom
