// The map space of one layer on one architecture under one constraint set: the "space" of
// mapper = space x search x model (docs/mapping.md, "Search"). It knows
//  - the factor slots each loop may use (temporal, and spatial x / y where a fan-out
//    exists and the constraints allow it; a "whole" dimension has exactly one slot),
//  - the loop orders worth trying at a level: one per reuse signature, less the ones
//    another order provably beats (OrderTable),
//  - a cheap feasibility pre-check (fan-out, capacity, stationary rule) that answers with a
//    small reason key instead of a string, so the hot loop never allocates,
//  - the enumeration of every tiling (factors only), pruned inner-first: a level's tile
//    depends only on the factors at and below it, so a tile that does not fit ends the
//    branch before any outer level is chosen.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "arch/hierarchy/hierarchy_config.h"
#include "mapper/constraints.h"
#include "mapper/mapping.h"
#include "mapper/problem.h"

namespace loom {

// A factor slot: level * 3 + kind.
enum SlotKind : int { kSlotTemporal = 0, kSlotX = 1, kSlotY = 2 };
inline constexpr int kSlotKinds = 3;
inline constexpr int kMaxSlots = kMaxLevels * kSlotKinds;
inline constexpr int slot_of(int level, int kind) { return level * kSlotKinds + kind; }
inline int64_t& slot_factor(Mapping& m, int slot, int dim) {
  LevelMapping& lm = m.levels[slot / kSlotKinds];
  switch (slot % kSlotKinds) {
    case kSlotX: return lm.spatial_x[dim];
    case kSlotY: return lm.spatial_y[dim];
  }
  return lm.temporal[dim];
}
inline int64_t slot_factor(const Mapping& m, int slot, int dim) {
  return slot_factor(const_cast<Mapping&>(m), slot, dim);
}

using LoopOrder = std::array<int8_t, kNumDims>;

// Why a candidate was rejected, as a key the hot path can count without strings.
enum class Reject : uint8_t { capacity, fanout_x, fanout_y, stationary };
inline constexpr int kRejectKinds = 4;

// Rejection counts per (level, operand, rule); turned into sentences only at the end.
class RejectionTally {
 public:
  void add(Reject rule, int level, int operand, int64_t n = 1) {
    counts_[index(rule, level, operand)] += n;
  }
  // Slow path for reasons only the full check can name (a pre-check/model mismatch).
  void add_text(const std::string& why, int64_t n = 1) { text_[why] += n; }
  void merge(const RejectionTally& o);
  bool empty() const;
  // Sum of the keyed counts (pre-check rejections and pruned branches; not add_text).
  int64_t keyed_total() const;
  // Most frequent first (ties by text), e.g. {"GLB: inputs tile exceeds capacity", 1200}.
  std::vector<std::pair<std::string, int64_t>> sorted(const HierarchyConfig& arch,
                                                      const MappingConstraints& c) const;

 private:
  static int index(Reject rule, int level, int operand) {
    return ((level + 1) * (kNumOperands + 1) + (operand + 1)) * kRejectKinds + static_cast<int>(rule);
  }
  std::array<int64_t, (kMaxLevels + 1) * (kNumOperands + 1) * kRejectKinds> counts_{};
  std::map<std::string, int64_t> text_;
};

// Candidate orders of one level's non-unit temporal loops. Two orders are equivalent for
// the cost model when, for every operand, the innermost run of loops that do not index it
// is the same set, and the innermost loop that indexes the inputs is the same dimension
// (its sliding window decides the halo). Of each class one representative is kept, with
// the factor-1 loops outermost (they do not exist in the nest). An order is also dropped
// when another one provably costs no more: every operand's run is a superset, and the
// inputs' innermost indexing loop is the same or the dropped one's gives no halo reuse
// (N, C). Sound for any cost that grows with the words moved, which holds when no energy
// is negative (checked; otherwise only equivalent orders are merged).
class OrderTable {
 public:
  // `stationary` >= 0 keeps only orders whose innermost loop does not index it.
  void build(bool drop_dominated);
  const std::vector<LoopOrder>& orders(DimMask nonunit, int stationary) const {
    return lists_[nonunit][stationary + 1];
  }

 private:
  std::array<std::array<std::vector<LoopOrder>, kNumOperands + 1>, 128> lists_;
};

// The reuse signature of a sequence of non-unit loops (outermost first): per operand the
// innermost run of loops not indexing it, and the innermost loop indexing the inputs.
uint32_t reuse_signature(const int8_t* dims, int n);

class MapSpace {
 public:
  MapSpace(const Problem& problem, const HierarchyConfig& arch, const MappingConstraints& c);

  const Problem& problem() const { return problem_; }
  const HierarchyConfig& arch() const { return arch_; }
  const MappingConstraints& constraints() const { return c_; }
  int levels() const { return levels_; }
  bool allowed(int dim, int slot) const { return allowed_[dim][slot]; }
  // Allowed slots of a dimension, innermost level first (empty for a bound of 1).
  const std::vector<int>& slots(int dim) const { return slots_[dim]; }
  // Prime factors of a dimension's bound, with multiplicity, ascending.
  const std::vector<int64_t>& primes(int dim) const { return primes_[dim]; }
  // Divisors of a dimension's bound, ascending.
  const std::vector<int64_t>& divisors(int dim) const { return divisors_[dim]; }
  // Why the space is empty before any search (a whole dimension that cannot fit its slot,
  // a dimension with no slot); "" otherwise.
  const std::string& empty_reason() const { return empty_reason_; }

  // The level whose innermost loop the stationary rule constrains for the factors of `m`
  // (the innermost level at or above the array level with a non-unit temporal loop), -1
  // when the rule does not apply.
  int stationary_level(const Mapping& m) const;
  // Order candidates for level `level` of the factors in `m`.
  const std::vector<LoopOrder>& orders_for(const Mapping& m, int level, int stationary_level) const;

  // Does a tile with extents `e` fit one instance of `level`? The cost model's rule
  // exactly (bytes rounded up per operand, shared pools summed); on failure *operand is
  // the operand at fault (the largest one for a shared pool).
  bool fits(int level, const DimArray& e, int* operand) const;
  // Fan-out, capacity and stationary checks of a complete mapping whose factors cover the
  // problem and use only allowed slots. On failure fills rule/level/operand.
  bool precheck(const Mapping& m, Reject* rule, int* level, int* operand) const;

  // Every tiling, inner level first, as a mapping with orders unset; `visit(m)` returns
  // false to stop. Capacity prunes are counted in *tally (if given) once per pruned branch.
  // Returns false if stopped.
  template <class Visit>
  bool for_each_tiling(Visit&& visit, RejectionTally* tally) const;

  // Candidates (tilings x order combinations) up to `limit`; returns limit + 1 when larger.
  int64_t count_candidates(int64_t limit) const;
  // Order combinations of a tiling (0 if the stationary rule leaves no order).
  int64_t order_combinations(const Mapping& m) const;

 private:
  struct Walk {
    Mapping m;
    std::array<DimArray, kMaxLevels + 1> ext;  // ext[l]: extent of a level-l tile
    DimArray rem;                              // bound not yet placed
    std::array<int64_t, kMaxLevels> xprod, yprod;
  };
  template <class Visit>
  bool walk(int level, int dim, Walk& w, Visit& visit, RejectionTally* tally) const;

  const Problem& problem_;
  const HierarchyConfig& arch_;
  const MappingConstraints& c_;
  int levels_ = 0;
  std::array<std::array<bool, kMaxSlots>, kNumDims> allowed_{};
  std::array<std::vector<int>, kNumDims> slots_;
  std::array<std::vector<int64_t>, kNumDims> primes_, divisors_;
  // outer_slot_[d][l]: d has an allowed slot at some level < l.
  std::array<std::array<bool, kMaxLevels>, kNumDims> outer_slot_{};
  struct LevelInfo {
    int64_t fx = 1, fy = 1;
  };
  std::array<LevelInfo, kMaxLevels> info_{};
  OrderTable orders_;
  std::string empty_reason_;
};

// ---- template implementation ----

template <class Visit>
bool MapSpace::for_each_tiling(Visit&& visit, RejectionTally* tally) const {
  if (!empty_reason_.empty()) return true;
  Walk w;
  w.m.num_levels = levels_;
  w.ext[levels_].fill(1);
  w.ext[levels_ - 1] = w.ext[levels_];
  w.rem = problem_.bound;
  w.xprod.fill(1);
  w.yprod.fill(1);
  return walk(levels_ - 1, 0, w, visit, tally);
}

template <class Visit>
bool MapSpace::walk(int l, int d, Walk& w, Visit& visit, RejectionTally* tally) const {
  if (d == kNumDims) {
    // The level's tile is final. (Dimensions placed further in were checked against the
    // inner levels only; this level may keep operands they bypass.)
    int op = -1;
    if (!fits(l, w.ext[l], &op)) {
      if (tally) tally->add(Reject::capacity, l, op);
      return true;
    }
    if (l == 0) return visit(static_cast<const Mapping&>(w.m));
    w.ext[l - 1] = w.ext[l];
    return walk(l - 1, 0, w, visit, tally);
  }
  const int64_t rem = w.rem[d];
  if (rem == 1) return walk(l, d + 1, w, visit, tally);
  const bool must_close = !outer_slot_[d][l];
  const bool can_t = allowed_[d][slot_of(l, kSlotTemporal)];
  const bool can_x = allowed_[d][slot_of(l, kSlotX)];
  const bool can_y = allowed_[d][slot_of(l, kSlotY)];
  const int64_t base = w.ext[l][d];
  LevelMapping& lm = w.m.levels[l];
  bool keep_going = true;
  for (int64_t q : divisors_[d]) {
    if (q > rem) break;
    if (rem % q != 0 || (must_close && q != rem)) continue;
    if (q > 1 && !can_t && !can_x && !can_y) break;
    w.ext[l][d] = base * q;
    int op = -1;
    if (!fits(l, w.ext[l], &op)) {
      // Tiles only grow with q (and with every factor still to come): nothing larger fits.
      if (tally) tally->add(Reject::capacity, l, op);
      break;
    }
    bool placed = false;
    // Split q = t * x * y over the slots this level offers.
    for (int64_t x : divisors_[d]) {
      if (x > q) break;
      if (q % x != 0 || (x > 1 && (!can_x || w.xprod[l] * x > info_[l].fx))) continue;
      const int64_t qy = q / x;
      for (int64_t y : divisors_[d]) {
        if (y > qy) break;
        if (qy % y != 0 || (y > 1 && (!can_y || w.yprod[l] * y > info_[l].fy))) continue;
        const int64_t t = qy / y;
        if (t > 1 && !can_t) continue;
        placed = true;
        lm.temporal[d] = t;
        lm.spatial_x[d] = x;
        lm.spatial_y[d] = y;
        w.xprod[l] *= x;
        w.yprod[l] *= y;
        w.rem[d] = rem / q;
        keep_going = walk(l, d + 1, w, visit, tally);
        w.xprod[l] /= x;
        w.yprod[l] /= y;
        if (!keep_going) break;
      }
      if (!keep_going) break;
    }
    if (!placed && must_close && tally)
      tally->add(can_x && !can_y ? Reject::fanout_x : Reject::fanout_y, l, -1);
    if (!keep_going) break;
  }
  lm.temporal[d] = lm.spatial_x[d] = lm.spatial_y[d] = 1;
  w.rem[d] = rem;
  w.ext[l][d] = base;
  return keep_going;
}

}  // namespace loom
