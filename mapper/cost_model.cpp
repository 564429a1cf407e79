// The analytic cost model. Conventions (docs/cost-model.md):
//  - The nest, outermost first: level 0 temporal, level 0 spatial, level 1 temporal, ...
//    A level-i tile spans every loop at level i and below; E[i][d] is its extent.
//  - For each operand, data moves between consecutive levels that keep it (a bypassed
//    level is skipped); the MACs act as a last level with one-word tiles.
//  - Temporal reuse: the child tile is refilled once per iteration of the loops above it,
//    except the innermost run of loops that do not index the operand (the tile stays).
//    When the innermost indexing loop slides an input window (P, Q, R or S), later
//    iterations fetch only the rows or columns that are new (the halo is kept).
//  - Spatial reuse: the children under one parent instance need the union of their tiles;
//    with multicast the parent reads that union once, without it once per child. Partial
//    sums of the same output from several children are added in the network (reduction).
//  - Outputs move up as updates; every update after an output's first reaches its level
//    as a read-modify-write, so the level sends the partial sum back down (a psum read).
#include "mapper/cost_model.h"

#include <algorithm>
#include <cmath>

#include "sim/text_file.h"

namespace loom {

namespace {

struct Nest {
  int levels = 0;
  // E[i][d]: extent of dim d spanned by a level-i tile; E[levels] = 1 (one MAC).
  std::array<DimArray, kMaxLevels + 1> extent;
  // Product of spatial factors of dim d at level j (both axes).
  std::array<DimArray, kMaxLevels> spatial;
  // Tile instances in use at level i (children of all fan-outs above it).
  std::array<int64_t, kMaxLevels + 1> instances;
};

void build_nest(const Mapping& m, int levels, Nest& n) {
  n.levels = levels;
  n.extent[levels].fill(1);
  for (int i = levels - 1; i >= 0; --i) {
    const LevelMapping& lm = m.levels[i];
    for (int d = 0; d < kNumDims; ++d) {
      n.spatial[i][d] = lm.spatial_x[d] * lm.spatial_y[d];
      n.extent[i][d] = n.extent[i + 1][d] * lm.temporal[d] * n.spatial[i][d];
    }
  }
  n.instances[0] = 1;
  for (int i = 1; i <= levels; ++i) {
    int64_t s = 1;
    for (int d = 0; d < kNumDims; ++d) s *= n.spatial[i - 1][d];
    n.instances[i] = n.instances[i - 1] * s;
  }
}

// Where the reuse walk stops for one operand above a child level.
struct Refill {
  int64_t outer = 1;  // iterations of the loops outside the innermost indexing loop
  int64_t factor = 1; // trip count of that loop (1: the tile is filled once)
  int dim = -1;       // its dimension
  int level = -1;     // its level
};

Refill refill_of(const Mapping& m, int child, int operand) {
  Refill r;
  bool found = false;
  for (int j = child - 1; j >= 0; --j) {
    const LevelMapping& lm = m.levels[j];
    for (int k = kNumDims - 1; k >= 0; --k) {
      const int d = lm.order[k];
      const int64_t f = lm.temporal[d];
      if (f == 1) continue;
      if (found) {
        r.outer *= f;
      } else if (relevant(operand, d)) {
        found = true;
        r.factor = f;
        r.dim = d;
        r.level = j;
      }
    }
  }
  return r;
}

// Words of an input tile with extents `e` that are new when the loop over `dim` advances
// by `step` (in that dimension's units): the sliding window keeps the overlap.
int64_t input_delta(const Problem& p, const DimArray& e, int dim, int64_t step) {
  const int64_t h = (e[kDimP] - 1) * p.stride_h + (e[kDimR] - 1) * p.dilation_h + 1;
  const int64_t w = (e[kDimQ] - 1) * p.stride_w + (e[kDimS] - 1) * p.dilation_w + 1;
  const int64_t nc = e[kDimN] * e[kDimC];
  switch (dim) {
    case kDimP: return nc * std::min(h, step * p.stride_h) * w;
    case kDimR: return nc * std::min(h, step * p.dilation_h) * w;
    case kDimQ: return nc * h * std::min(w, step * p.stride_w);
    case kDimS: return nc * h * std::min(w, step * p.dilation_w);
  }
  return nc * h * w;
}

// Words moved into tiles of extent `e` over all iterations of the loops above: the first
// fill of each pass of the innermost indexing loop is whole, later ones only the new halo.
int64_t moved_words(const Problem& p, int operand, const DimArray& e, const Refill& r,
                    int64_t step) {
  const int64_t whole = p.tile_elements(operand, e);
  if (r.factor == 1) return r.outer * whole;
  const int64_t later = operand == kInputs ? input_delta(p, e, r.dim, step) : whole;
  return r.outer * (whole + (r.factor - 1) * later);
}


// Structural checks shared by evaluate() and check_mapping(); false with a reason.
bool check_structure(const Problem& problem, const HierarchyConfig& arch, const Mapping& m,
                     MappingIssue* issue) {
  // The message is only built when asked for: the search calls this millions of times.
#define LOOM_MAPPING_FAIL(what, level, operand)   \
  do {                                            \
    if (issue) *issue = {(what), (level), (operand)}; \
    return false;                                 \
  } while (0)
  const int levels = arch.num_levels();
  if (m.num_levels != levels)
    LOOM_MAPPING_FAIL("the mapping has " + std::to_string(m.num_levels) + " levels but the architecture has " +
                    std::to_string(levels), -1, -1);
  // Multiplies step by step against the bound, so absurd factors cannot overflow.
  DimArray product{1, 1, 1, 1, 1, 1, 1};
  for (int i = 0; i < levels; ++i) {
    const LevelMapping& lm = m.levels[i];
    const Fanout& fo = arch.levels[i].fanout;
    int seen = 0;
    for (int k = 0; k < kNumDims; ++k) {
      const int d = lm.order[k];
      if (d < 0 || d >= kNumDims || (seen >> d & 1))
        LOOM_MAPPING_FAIL("the loop order is not a permutation of the 7 loops", i, -1);
      seen |= 1 << d;
    }
    int64_t x = 1, y = 1;
    for (int d = 0; d < kNumDims; ++d) {
      for (int64_t f : {lm.temporal[d], lm.spatial_x[d], lm.spatial_y[d]}) {
        if (f < 1) LOOM_MAPPING_FAIL(std::string("loop ") + problem.dim_name(d) + " has a factor below 1", i, -1);
        if (f > problem.bound[d] || product[d] * f > problem.bound[d])
          LOOM_MAPPING_FAIL(std::string("loop ") + problem.dim_name(d) + ": factors multiply to more than the layer's bound " +
                                with_commas(problem.bound[d]) + " (the mapping must cover the layer exactly)",
                            -1, -1);
        product[d] *= f;
      }
      x *= lm.spatial_x[d];  // each factor <= its bound (< 2^25): no overflow before the check
      y *= lm.spatial_y[d];
      if (x > fo.x)
        LOOM_MAPPING_FAIL("spatial-x factors multiply to " + with_commas(x) + " or more but the fan-out has " +
                        with_commas(fo.x) + " columns", i, -1);
      if (y > fo.y)
        LOOM_MAPPING_FAIL("spatial-y factors multiply to " + with_commas(y) + " or more but the fan-out has " +
                        with_commas(fo.y) + " rows", i, -1);
    }
  }
  for (int d = 0; d < kNumDims; ++d)
    if (product[d] != problem.bound[d])
      LOOM_MAPPING_FAIL(std::string("loop ") + problem.dim_name(d) + ": factors multiply to " +
                      with_commas(product[d]) + " but the layer's bound is " +
                      with_commas(problem.bound[d]) + " (the mapping must cover the layer exactly)",
                  -1, -1);
  return true;
#undef LOOM_MAPPING_FAIL
}

bool check_capacity(const Problem& problem, const HierarchyConfig& arch, const Nest& n,
                    MappingIssue* issue) {
  for (int i = 0; i < n.levels; ++i) {
    const int o = capacity_overflow(problem, arch, i, n.extent[i]);
    if (o < 0) continue;
    if (issue) {
      // Only the failure path spells the numbers out.
      const StorageLevel& lv = arch.levels[i];
      auto bytes = [&](int q) { return bytes_for(problem.tile_elements(q, n.extent[i]), arch.word_bits[q]); };
      if (!lv.shared) {
        *issue = {std::string(operand_name(o)) + " tile needs " + with_commas(bytes(o)) +
                      " B but the level holds " + with_commas(lv.usable_bytes(o)) + " B of " +
                      operand_name(o) + " per instance" +
                      (lv.double_buffered ? " (half of the buffer: double-buffered)" : ""),
                  i, o};
      } else {
        int64_t total = 0;
        for (int q = 0; q < kNumOperands; ++q)
          if (lv.keeps[q]) total += bytes(q);
        *issue = {"tiles of the kept operands need " + with_commas(total) +
                      " B together but the level holds " + with_commas(lv.usable_bytes(kWeights)) +
                      " B per instance" + (lv.double_buffered ? " (half: double-buffered)" : "") +
                      "; the largest is " + operand_name(o),
                  i, o};
      }
    }
    return false;
  }
  return true;
}

// Product over the fan-outs at levels [from, to) of the spatial factors of dims that do
// not index `operand`: how many instances hold copies (or partial sums) of the same data.
int64_t replication(const Nest& n, int from, int to, int operand) {
  int64_t r = 1;
  for (int j = from; j < to; ++j)
    for (int d = 0; d < kNumDims; ++d)
      if (!relevant(operand, d)) r *= n.spatial[j][d];
  return r;
}

}  // namespace

const char* name_of(Objective o) {
  switch (o) {
    case Objective::latency: return "latency";
    case Objective::energy: return "energy";
    case Objective::edp: return "edp";
  }
  return "?";
}

double objective_value(const Cost& c, Objective o) {
  switch (o) {
    case Objective::latency: return static_cast<double>(c.cycles);
    case Objective::energy: return c.energy_pj;
    case Objective::edp: return c.edp();
  }
  return 0;
}

int capacity_overflow(const Problem& problem, const HierarchyConfig& arch, int level, const DimArray& extent) {
  const StorageLevel& lv = arch.levels[level];
  if (lv.unbounded) return -1;
  int64_t total = 0, largest_bytes = -1;
  int largest = -1;
  for (int o = 0; o < kNumOperands; ++o) {
    if (!lv.keeps[o]) continue;
    const int64_t bytes = bytes_for(problem.tile_elements(o, extent), arch.word_bits[o]);
    if (!lv.shared && bytes > lv.usable_bytes(o)) return o;
    total += bytes;
    if (bytes > largest_bytes) largest_bytes = bytes, largest = o;
  }
  return lv.shared && total > lv.usable_bytes(kWeights) ? largest : -1;
}

bool check_mapping(const Problem& problem, const HierarchyConfig& arch, const Mapping& m,
                   MappingIssue* issue) {
  if (!check_structure(problem, arch, m, issue)) return false;
  Nest n;
  build_nest(m, arch.num_levels(), n);
  return check_capacity(problem, arch, n, issue);
}

Cost evaluate(const Problem& problem, const HierarchyConfig& arch, const Mapping& m) {
  Cost c;
  if (!check_structure(problem, arch, m, nullptr)) return c;
  const int L = arch.num_levels();
  Nest n;
  build_nest(m, L, n);
  if (!check_capacity(problem, arch, n, nullptr)) return c;
  c.valid = true;
  c.num_levels = L;
  for (int i = 0; i < L; ++i) {
    c.levels[i].instances_used = n.instances[i];
    for (int o = 0; o < kNumOperands; ++o)
      c.levels[i].tile_words[o] = arch.levels[i].keeps[o] ? problem.tile_elements(o, n.extent[i]) : 0;
  }

  std::array<std::array<int64_t, kNumOperands>, kMaxLevels + 1> tile_refills{};
  int64_t all_temporal = 1;
  for (int i = 0; i < L; ++i)
    for (int d = 0; d < kNumDims; ++d) all_temporal *= m.levels[i].temporal[d];
  const int64_t total_outputs = problem.operand_elements(kOutputs);
  for (int o = 0; o < kNumOperands; ++o) {
    int parent = 0;  // DRAM keeps every operand
    for (int child = 1; child <= L; ++child) {
      if (child < L && !arch.levels[child].keeps[o]) continue;
      // The MACs keep nothing between operations: each one reads its operands from, and
      // read-modify-writes its partial sum in, the innermost level that keeps them.
      Refill r = refill_of(m, child, o);
      tile_refills[child][o] = r.outer * r.factor;  // per instance; the systolic fold count reads it
      if (child == L) r = {all_temporal, 1, -1, -1};
      // Step of the innermost indexing loop, in its dimension: everything inside it.
      int64_t step = 1;
      if (r.dim >= 0) step = n.extent[r.level + 1][r.dim] * n.spatial[r.level][r.dim];
      // Union of the children's tiles under one parent instance.
      DimArray u = n.extent[child];
      bool multicast = true, reduction = true;
      for (int j = parent; j < child; ++j) {
        for (int d = 0; d < kNumDims; ++d) u[d] *= n.spatial[j][d];
        multicast = multicast && arch.levels[j].fanout.multicast;
        reduction = reduction && arch.levels[j].fanout.reduction;
      }
      const int64_t child_words = n.instances[child] * moved_words(problem, o, n.extent[child], r, step);
      const int64_t union_words = n.instances[parent] * moved_words(problem, o, u, r, step);
      OperandCounts& pc = c.levels[parent].ops[o];
      int64_t delivered = child_words;
      if (o != kOutputs) {
        pc.reads += multicast ? union_words : child_words;
        if (child < L) c.levels[child].ops[o].fills += child_words;
      } else {
        // Each output is first written without a read; every later update is a
        // read-modify-write, so the partial sum travels back down first.
        const int64_t parent_updates = reduction ? union_words : child_words;
        const int64_t parent_first = total_outputs * replication(n, 0, parent, kOutputs);
        pc.updates += parent_updates;
        pc.reads += std::max<int64_t>(0, parent_updates - parent_first);
        const int64_t child_first = total_outputs * replication(n, 0, child, kOutputs);
        const int64_t child_fills = std::max<int64_t>(0, child_words - child_first);
        if (child < L) {
          c.levels[child].ops[o].drains += child_words;
          c.levels[child].ops[o].fills += child_fills;
        }
        delivered = child_words + child_fills;
      }
      // Words crossing the fan-outs between the two levels, charged to the innermost.
      bool has_fanout = false;
      for (int j = parent; j < child; ++j) has_fanout = has_fanout || arch.levels[j].fanout.size() > 1;
      if (has_fanout) {
        c.levels[child - 1].network_deliveries += delivered;
        c.levels[child - 1].network_words[o] += delivered;
      }
      parent = child;
    }
  }

  // Compute cycles: one MAC per PE per cycle over every temporal iteration.
  c.compute_cycles = all_temporal;
  // A systolic fan-out pays, for every new stationary tile, the preload of its rows and
  // the skew of the wavefront: r + c + R - 2 cycles (docs/systolic-conventions.md). The
  // stationary operand is the one whose PE tile is refilled least often.
  for (int a = 0; a < L; ++a) {
    const Fanout& fo = arch.levels[a].fanout;
    if (!fo.systolic) continue;
    const int pe = a + 1;
    int64_t folds = 0;
    for (int o = 0; o < kNumOperands; ++o) {
      if (pe < L && !arch.levels[pe].keeps[o]) continue;
      const int64_t fills = tile_refills[pe][o];
      if (folds == 0 || fills < folds) folds = fills;
    }
    int64_t rows = 1, cols = 1;
    for (int d = 0; d < kNumDims; ++d) rows *= m.levels[a].spatial_y[d], cols *= m.levels[a].spatial_x[d];
    c.folds = folds;
    c.compute_cycles += folds * (rows + cols + fo.y - 2);
  }

  // Bytes, bandwidth and energy per level.
  int64_t cycles = c.compute_cycles;
  int bottleneck = -1;
  for (int i = 0; i < L; ++i) {
    const StorageLevel& lv = arch.levels[i];
    LevelCost& lc = c.levels[i];
    for (int o = 0; o < kNumOperands; ++o) {
      const OperandCounts& oc = lc.ops[o];
      lc.read_bytes += bytes_for(oc.total_reads(), arch.word_bits[o]);
      lc.write_bytes += bytes_for(oc.total_writes(), arch.word_bits[o]);
      lc.access_pj += static_cast<double>(oc.total_reads()) * lv.read_pj[o] +
                      static_cast<double>(oc.total_writes()) * lv.write_pj[o];
    }
    for (int o = 0; o < kNumOperands; ++o)
      lc.network_pj += static_cast<double>(lc.network_words[o]) * lv.fanout.operand_hop_pj[o];
    const double per_instance = static_cast<double>(n.instances[i]);
    double bw = 0;
    if (lv.read_bytes_per_cycle > 0)
      bw = std::max(bw, static_cast<double>(lc.read_bytes) / per_instance / lv.read_bytes_per_cycle);
    if (lv.write_bytes_per_cycle > 0)
      bw = std::max(bw, static_cast<double>(lc.write_bytes) / per_instance / lv.write_bytes_per_cycle);
    lc.bandwidth_cycles = bw < static_cast<double>(kCostCyclesCap) ? static_cast<int64_t>(std::ceil(bw)) : kCostCyclesCap;
    if (lc.bandwidth_cycles > cycles) cycles = lc.bandwidth_cycles, bottleneck = i;
  }
  c.cycles = cycles;
  c.bottleneck = bottleneck;

  // Leakage over the whole run, for every physical instance.
  int64_t physical = 1;
  for (int i = 0; i < L; ++i) {
    c.levels[i].leakage_pj = arch.levels[i].leakage_pj_per_cycle * static_cast<double>(physical) *
                             static_cast<double>(cycles);
    physical *= arch.levels[i].fanout.size();
  }

  // Everything above is for one group; groups repeat the nest back to back.
  const int64_t g = problem.groups;
  const auto times_groups = [g](int64_t cycles) { return cycles < kCostCyclesCap / g ? cycles * g : kCostCyclesCap; };
  c.macs = problem.macs();
  c.compute_cycles *= g;
  c.cycles = times_groups(c.cycles);
  c.folds *= g;
  c.mac_pj = static_cast<double>(c.macs) * arch.mac_pj;
  c.energy_pj = c.mac_pj;
  for (int i = 0; i < L; ++i) {
    LevelCost& lc = c.levels[i];
    for (OperandCounts& oc : lc.ops) {
      oc.reads *= g, oc.fills *= g, oc.updates *= g, oc.drains *= g;
    }
    lc.read_bytes *= g, lc.write_bytes *= g, lc.network_deliveries *= g;
    lc.bandwidth_cycles = times_groups(lc.bandwidth_cycles);
    for (int64_t& w : lc.network_words) w *= g;
    lc.access_pj *= static_cast<double>(g);
    lc.network_pj *= static_cast<double>(g);
    lc.leakage_pj *= static_cast<double>(g);
    c.energy_pj += lc.access_pj + lc.network_pj + lc.leakage_pj;
  }
  c.utilization = static_cast<double>(c.macs) /
                  (static_cast<double>(physical) * static_cast<double>(c.cycles));
  return c;
}

}  // namespace loom
