#include "mapper/map_space.h"

#include <algorithm>

#include "mapper/cost_model.h"
#include "sim/text_file.h"

namespace loom {

// ---- rejection tally ----

void RejectionTally::merge(const RejectionTally& o) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
  for (const auto& [k, v] : o.text_) text_[k] += v;
}

int64_t RejectionTally::keyed_total() const {
  int64_t n = 0;
  for (int64_t c : counts_) n += c;
  return n;
}

bool RejectionTally::empty() const {
  for (int64_t c : counts_)
    if (c) return false;
  return text_.empty();
}

std::vector<std::pair<std::string, int64_t>> RejectionTally::sorted(const HierarchyConfig& arch,
                                                                    const MappingConstraints& c) const {
  std::vector<std::pair<std::string, int64_t>> out;
  for (int level = -1; level < kMaxLevels; ++level)
    for (int op = -1; op < kNumOperands; ++op)
      for (int r = 0; r < kRejectKinds; ++r) {
        const int64_t n = counts_[index(static_cast<Reject>(r), level, op)];
        if (n == 0) continue;
        std::string s = level >= 0 && level < arch.num_levels() ? arch.levels[level].name : "mapping";
        s += ": ";
        const StorageLevel* lv = level >= 0 && level < arch.num_levels() ? &arch.levels[level] : nullptr;
        switch (static_cast<Reject>(r)) {
          case Reject::capacity:
            if (lv && lv->shared)
              s += std::string("tiles exceed the ") + with_commas(lv->usable_bytes(kWeights)) +
                   " B usable capacity (largest: " + (op >= 0 ? operand_name(op) : "?") + ")";
            else
              s += std::string(op >= 0 ? operand_name(op) : "?") + " tile exceeds the " +
                   (lv && op >= 0 ? with_commas(lv->usable_bytes(op)) : std::string("?")) +
                   " B usable capacity";
            break;
          case Reject::fanout_x:
            s += "spatial-x factors exceed the fan-out's " + (lv ? with_commas(lv->fanout.x) : "?") + " columns";
            break;
          case Reject::fanout_y:
            s += "spatial-y factors exceed the fan-out's " + (lv ? with_commas(lv->fanout.y) : "?") + " rows";
            break;
          case Reject::stationary:
            s += std::string("innermost temporal loop indexes the ") +
                 (c.stationary >= 0 ? operand_name(c.stationary) : "?") + ", which " +
                 (c.name.empty() ? std::string("the dataflow") : c.name) + " keeps stationary in the PEs";
            break;
        }
        out.emplace_back(std::move(s), n);
      }
  for (const auto& [k, v] : text_) out.emplace_back(k, v);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return out;
}

// ---- loop orders ----

uint32_t reuse_signature(const int8_t* dims, int n) {
  uint32_t sig = 0;
  for (int o = 0; o < kNumOperands; ++o) {
    uint32_t run = 0;
    for (int i = n - 1; i >= 0 && !relevant(o, dims[i]); --i) run |= dim_bit(dims[i]);
    sig |= run << (7 * o);
  }
  int inner_input = -1;
  for (int i = n - 1; i >= 0; --i)
    if (relevant(kInputs, dims[i])) {
      inner_input = dims[i];
      break;
    }
  return sig | static_cast<uint32_t>(inner_input + 1) << 21;
}

namespace {

bool sliding(int dim) { return dim == kDimP || dim == kDimQ || dim == kDimR || dim == kDimS; }

// b costs no more than a (see OrderTable): runs are supersets and b's input loop is the
// same or a's gives no halo.
bool no_worse(uint32_t b, uint32_t a) {
  const uint32_t runs = (1u << 21) - 1;
  if (((a & runs) & ~(b & runs)) != 0) return false;
  const int ia = static_cast<int>(a >> 21) - 1, ib = static_cast<int>(b >> 21) - 1;
  return ia == ib || ia < 0 || !sliding(ia);
}

}  // namespace

void OrderTable::build(bool drop_dominated) {
  for (int mask = 0; mask < 128; ++mask) {
    // Every permutation of the non-unit loops, in lexicographic order so the first of each
    // class (the representative) is the same on every run.
    std::array<int8_t, kNumDims> dims{};
    int n = 0;
    for (int d = 0; d < kNumDims; ++d)
      if (mask >> d & 1) dims[n++] = static_cast<int8_t>(d);
    std::vector<std::pair<uint32_t, LoopOrder>> reps;
    do {
      const uint32_t sig = reuse_signature(dims.data(), n);
      bool seen = false;
      for (const auto& r : reps) seen = seen || r.first == sig;
      if (seen) continue;
      LoopOrder order{};
      int k = 0;
      for (int d = 0; d < kNumDims; ++d)
        if (!(mask >> d & 1)) order[k++] = static_cast<int8_t>(d);  // unit loops outermost
      for (int i = 0; i < n; ++i) order[k++] = dims[i];
      reps.emplace_back(sig, order);
    } while (std::next_permutation(dims.begin(), dims.begin() + n));

    for (int st = -1; st < kNumOperands; ++st) {
      std::vector<std::pair<uint32_t, LoopOrder>> pool;
      for (const auto& r : reps) {
        // Stationary: the innermost loop must not index the operand (its run is not empty).
        if (st >= 0 && n > 0 && ((r.first >> (7 * st)) & 0x7f) == 0) continue;
        pool.push_back(r);
      }
      std::vector<LoopOrder>& out = lists_[mask][st + 1];
      out.clear();
      for (size_t i = 0; i < pool.size(); ++i) {
        bool dominated = false;
        for (size_t j = 0; drop_dominated && j < pool.size() && !dominated; ++j) {
          if (j == i || !no_worse(pool[j].first, pool[i].first)) continue;
          // Mutually no worse: keep the earlier one.
          dominated = !no_worse(pool[i].first, pool[j].first) || j < i;
        }
        if (!dominated) out.push_back(pool[i].second);
      }
    }
  }
}

// ---- map space ----

namespace {

std::vector<int64_t> prime_factors(int64_t v) {
  std::vector<int64_t> p;
  for (int64_t f = 2; f * f <= v; ++f)
    while (v % f == 0) p.push_back(f), v /= f;
  if (v > 1) p.push_back(v);
  return p;
}

std::vector<int64_t> divisors_of(int64_t v) {
  std::vector<int64_t> d;
  for (int64_t f = 1; f * f <= v; ++f)
    if (v % f == 0) {
      d.push_back(f);
      if (f != v / f) d.push_back(v / f);
    }
  std::sort(d.begin(), d.end());
  return d;
}

bool energies_nonnegative(const HierarchyConfig& arch) {
  if (arch.mac_pj < 0) return false;
  for (const StorageLevel& lv : arch.levels) {
    for (int o = 0; o < kNumOperands; ++o)
      if (lv.read_pj[o] < 0 || lv.write_pj[o] < 0) return false;
    if (*std::min_element(lv.fanout.operand_hop_pj.begin(), lv.fanout.operand_hop_pj.end()) < 0 || lv.leakage_pj_per_cycle < 0) return false;
  }
  return true;
}

}  // namespace

MapSpace::MapSpace(const Problem& problem, const HierarchyConfig& arch, const MappingConstraints& c)
    : problem_(problem), arch_(arch), c_(c), levels_(arch.num_levels()) {
  if (levels_ < 1 || levels_ > kMaxLevels) {
    empty_reason_ = "the architecture has " + std::to_string(levels_) + " levels (1 to " +
                    std::to_string(kMaxLevels) + " supported)";
    levels_ = std::clamp(levels_, 1, kMaxLevels);
    return;
  }
  for (int l = 0; l < levels_; ++l) {
    const StorageLevel& lv = arch.levels[l];
    LevelInfo& li = info_[l];
    li.fx = lv.fanout.x;
    li.fy = lv.fanout.y;
  }
  for (int d = 0; d < kNumDims; ++d) {
    const int64_t b = problem.bound[d];
    primes_[d] = prime_factors(b);
    divisors_[d] = divisors_of(b);
    for (int l = 0; l < levels_; ++l) {
      allowed_[d][slot_of(l, kSlotTemporal)] = c.temporal_allowed[l] & dim_bit(d);
      allowed_[d][slot_of(l, kSlotX)] = info_[l].fx > 1 && (c.spatial_x_allowed[l] & dim_bit(d));
      allowed_[d][slot_of(l, kSlotY)] = info_[l].fy > 1 && (c.spatial_y_allowed[l] & dim_bit(d));
    }
  }
  // A whole dimension has exactly one slot, and all of its bound goes there.
  for (const MappingConstraints::Whole& w : c.whole) {
    if (w.level < 0 || w.level >= levels_) continue;
    const int kind = w.slot == LoopSlot::temporal ? kSlotTemporal : w.slot == LoopSlot::spatial_x ? kSlotX : kSlotY;
    const int s = slot_of(w.level, kind);
    const int d = w.dim;
    const int64_t b = problem.bound[d];
    const bool slot_ok = kind == kSlotTemporal ? (c.temporal_allowed[w.level] & dim_bit(d)) != 0
                         : kind == kSlotX      ? (c.spatial_x_allowed[w.level] & dim_bit(d)) != 0
                                               : (c.spatial_y_allowed[w.level] & dim_bit(d)) != 0;
    const int64_t room = kind == kSlotX ? info_[w.level].fx : kind == kSlotY ? info_[w.level].fy : b;
    if (b > 1 && (!slot_ok || b > room) && empty_reason_.empty())
      empty_reason_ = arch.levels[w.level].name + ": " + c.name + " needs all of " + problem.dim_name(d) +
                      " (" + std::to_string(b) + ") " +
                      (kind == kSlotTemporal ? "in its temporal loops" : kind == kSlotX ? "on the fan-out's x axis" : "on the fan-out's y axis") +
                      (b > room ? " but the fan-out has only " + std::to_string(room) : std::string(" but the slot is not allowed"));
    for (int t = 0; t < kMaxSlots; ++t) allowed_[d][t] = t == s;
  }
  for (int d = 0; d < kNumDims; ++d) {
    if (problem.bound[d] > 1)
      for (int l = levels_ - 1; l >= 0; --l)
        for (int k = 0; k < kSlotKinds; ++k)
          if (allowed_[d][slot_of(l, k)]) slots_[d].push_back(slot_of(l, k));
    if (problem.bound[d] > 1 && slots_[d].empty() && empty_reason_.empty())
      empty_reason_ = std::string("loop ") + problem.dim_name(d) + " (" + std::to_string(problem.bound[d]) +
                      ") has no level where " + (c.name.empty() ? std::string("the constraints") : c.name) +
                      " allows it";
    bool any = false;
    for (int l = 0; l < levels_; ++l) {
      outer_slot_[d][l] = any;
      for (int k = 0; k < kSlotKinds; ++k) any = any || allowed_[d][slot_of(l, k)];
    }
  }
  orders_.build(energies_nonnegative(arch));
}

bool MapSpace::fits(int level, const DimArray& e, int* operand) const {
  *operand = capacity_overflow(problem_, arch_, level, e);
  return *operand < 0;
}

int MapSpace::stationary_level(const Mapping& m) const {
  if (c_.stationary < 0 || c_.array_level < 0 || c_.array_level >= levels_) return -1;
  for (int l = c_.array_level; l >= 0; --l)
    for (int d = 0; d < kNumDims; ++d)
      if (m.levels[l].temporal[d] > 1) return l;
  return -1;
}

const std::vector<LoopOrder>& MapSpace::orders_for(const Mapping& m, int level, int stationary_level) const {
  DimMask mask = 0;
  for (int d = 0; d < kNumDims; ++d)
    if (m.levels[level].temporal[d] > 1) mask = static_cast<DimMask>(mask | dim_bit(d));
  return orders_.orders(mask, level == stationary_level ? c_.stationary : -1);
}

int64_t MapSpace::order_combinations(const Mapping& m) const {
  const int sl = stationary_level(m);
  int64_t n = 1;
  for (int l = 0; l < levels_; ++l) n *= static_cast<int64_t>(orders_for(m, l, sl).size());
  return n;
}

bool MapSpace::precheck(const Mapping& m, Reject* rule, int* level, int* operand) const {
  std::array<DimArray, kMaxLevels + 1> ext;
  ext[levels_].fill(1);
  for (int l = levels_ - 1; l >= 0; --l) {
    const LevelMapping& lm = m.levels[l];
    int64_t x = 1, y = 1;
    for (int d = 0; d < kNumDims; ++d) {
      x *= lm.spatial_x[d];
      y *= lm.spatial_y[d];
      ext[l][d] = ext[l + 1][d] * lm.temporal[d] * lm.spatial_x[d] * lm.spatial_y[d];
    }
    *level = l;
    *operand = -1;
    if (x > info_[l].fx) return *rule = Reject::fanout_x, false;
    if (y > info_[l].fy) return *rule = Reject::fanout_y, false;
    if (!fits(l, ext[l], operand)) return *rule = Reject::capacity, false;
  }
  if (c_.stationary >= 0 && c_.array_level >= 0 && c_.array_level < levels_) {
    int at = -1;
    const int d = innermost_temporal_loop_above(m, c_.array_level, &at);
    if (d >= 0 && relevant(c_.stationary, d)) {
      *level = at;
      *operand = c_.stationary;
      *rule = Reject::stationary;
      return false;
    }
  }
  return true;
}

int64_t MapSpace::count_candidates(int64_t limit) const {
  int64_t n = 0;
  for_each_tiling(
      [&](const Mapping& m) {
        n += order_combinations(m);
        return n <= limit;
      },
      nullptr);
  return std::min(n, limit + 1);
}

}  // namespace loom
