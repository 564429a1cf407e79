// The analytic cost model (fidelity "analytic", docs/cost-model.md): for one mapping of
// one layer on one hierarchy, the accesses at every level for every operand (reuse,
// multicast, spatial reduction and sliding-window halos counted), bytes moved between
// levels, cycles (compute with systolic fill/skew, or the busiest level's bandwidth,
// whichever is slower), utilization and energy. Allocation-free: the mapper calls it
// millions of times per second.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "arch/hierarchy/hierarchy_config.h"
#include "mapper/mapping.h"
#include "mapper/problem.h"

namespace loom {

// Word counts at one level for one operand, summed over the level's instances and all groups.
struct OperandCounts {
  int64_t reads = 0;    // words read out to feed inner levels or the MACs
  int64_t fills = 0;    // words written in from the outer level
  int64_t updates = 0;  // partial sums written in from inner levels or the MACs
  int64_t drains = 0;   // words read out to write back to the outer level
  int64_t total_reads() const { return reads + drains; }
  int64_t total_writes() const { return fills + updates; }
};

struct LevelCost {
  std::array<OperandCounts, kNumOperands> ops{};
  std::array<int64_t, kNumOperands> tile_words{};  // per instance
  int64_t instances_used = 1;                     // instances holding a tile
  int64_t read_bytes = 0, write_bytes = 0;        // all instances
  int64_t bandwidth_cycles = 0;                   // cycles its ports need (per instance)
  int64_t network_deliveries = 0;                 // words delivered across its fan-out
  std::array<int64_t, kNumOperands> network_words{};  // the same, per operand
  double access_pj = 0, network_pj = 0, leakage_pj = 0;
};

struct Cost {
  bool valid = false;
  int num_levels = 0;
  std::array<LevelCost, kMaxLevels> levels{};
  int64_t macs = 0;
  int64_t compute_cycles = 0;  // temporal iterations plus systolic preload/skew
  int64_t folds = 0;           // stationary tiles loaded into a systolic array (0 otherwise)
  int64_t cycles = 0;          // max(compute, every level's bandwidth cycles)
  int bottleneck = -1;         // level whose bandwidth sets `cycles`; -1 = compute
  double utilization = 0;      // MACs / (all PEs x cycles)
  double mac_pj = 0, energy_pj = 0;
  double edp() const { return energy_pj * static_cast<double>(cycles); }
};

enum class Objective { latency, energy, edp };
const char* name_of(Objective o);
double objective_value(const Cost& c, Objective o);

// Why a mapping cannot run; level/operand are -1 when not about one.
struct MappingIssue {
  std::string what;   // e.g. "tile of 70,144 B exceeds the 65,536 B usable capacity"
  int level = -1;
  int operand = -1;
};

// The one capacity rule: can an instance of `level` hold the tiles of extent `extent` of
// the operands it keeps? Bytes are rounded up per operand; a shared pool holds their sum;
// double buffering halves what a tile may use. Returns -1 when they fit, else the operand
// that overflows (for a shared pool, the largest). The map space prunes with it.
int capacity_overflow(const Problem& problem, const HierarchyConfig& arch, int level, const DimArray& extent);

// Full check with an explanation (for pinned mappings and error messages). Returns true
// when the mapping covers the problem exactly, respects every fan-out and fits every buffer.
bool check_mapping(const Problem& problem, const HierarchyConfig& arch, const Mapping& m,
                   MappingIssue* issue);

// Cycles beyond any run loom reports. A bandwidth-bound mapping can need more cycles than a
// 64-bit count holds (a 10^15-MAC layer through a 1/1024 B/cycle port), so the model clamps
// a level's bandwidth cycles, and the cycles times the groups, here: every product stays in
// 64 bits and such a mapping simply loses the search. map_layer refuses a layer whose best
// mapping takes more than kMaxLayerCycles (network_mapper.h), so a clamped figure is never
// reported.
inline constexpr int64_t kCostCyclesCap = int64_t{1} << 62;

// The model. Returns a Cost with valid=false (and nothing else filled) for an infeasible
// mapping; the search relies on this being cheap.
Cost evaluate(const Problem& problem, const HierarchyConfig& arch, const Mapping& m);

}  // namespace loom
