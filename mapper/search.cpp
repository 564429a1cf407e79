// The search half of mapper = space x search x model (docs/mapping.md, "Search").
//  - exhaustive: every tiling of the pruned map space (MapSpace::for_each_tiling) times
//    every combination of the candidate orders of its levels;
//  - random: fit-aware random tilings (each prime factor of each loop dropped into a
//    random slot where it still fits) with random candidate orders;
//  - anneal: chains of restarted simulated-annealing runs over moves (part of a loop's
//    factor to another slot; two loops trading factors between two slots; another
//    candidate order at one level), each run's best polished by local search.
// Determinism: work is cut into units fixed by the problem and the seed alone (blocks of
// tilings, chunks of samples, chains with seeds derived from (seed, chain)); threads take
// units round-robin and the best is chosen by (objective, unit rank), so every thread
// count returns the same mapping, bit for bit.
// `evaluated` counts candidates: those priced by the cost model plus those its cheap
// feasibility pre-check (capacity, fan-out, stationary rule) rejected first; a tiling
// branch pruned for capacity counts once.
#include "mapper/search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "mapper/map_space.h"

namespace loom {

namespace {

// Defaults (docs/mapping.md, "Search").
constexpr int64_t kRandomBudget = 20'000;
// Anneal: 8 chains of restarted runs (10,000 annealing steps, then up to 10,000 polish
// candidates). On ResNet-50 / Eyeriss-like (docs/performance.md, "Mapper") the worst layer
// over 8 seeds was 3.3% above the exhaustive optimum with 100,000 candidates and 0.27% with
// 200,000 or 300,000; with 600,000 it was 0.003% over 16 seeds, at about 0.2 s a layer.
constexpr int64_t kAnnealBudget = 600'000;
constexpr int kAnnealChains = 8;  // fixed, so results do not depend on the thread count
constexpr int64_t kRunSteps = 10'000;
constexpr int64_t kPolishCap = 10'000;
// `automatic` searches exhaustively when the space has at most this many candidates: the
// cost of the default anneal, so the exact answer is taken whenever it is as cheap.
constexpr int64_t kExhaustiveLimit = kAnnealBudget;
constexpr int64_t kTilingBlock = 8;    // exhaustive work unit, in tilings
constexpr int64_t kSampleChunk = 512;  // random work unit, in samples

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// xoshiro256** seeded through splitmix64: fast, and the same stream on every platform.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t x = splitmix64(seed) ^ splitmix64(stream + 0x632be59bd9b4e019ull);
    for (uint64_t& v : s_) v = x = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3], s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  uint64_t below(uint64_t n) { return n <= 1 ? 0 : next() % n; }  // bias < 2^-40 for our n
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_;
};

// Lexicographic rank of a candidate within the search: ties in the objective go to the
// lowest rank, whichever thread found it.
struct Rank {
  int64_t unit = 0, item = 0;
  bool operator<(const Rank& o) const { return unit != o.unit ? unit < o.unit : item < o.item; }
};

struct Best {
  bool found = false;
  double value = std::numeric_limits<double>::infinity();
  Rank rank;
  Mapping mapping;
  Cost cost;
  bool better(double v, const Rank& r) const { return !found || v < value || (v == value && r < rank); }
  void offer(double v, const Rank& r, const Mapping& m, const Cost& c) {
    if (!better(v, r)) return;
    found = true, value = v, rank = r, mapping = m, cost = c;
  }
  void merge(const Best& o) {
    if (o.found) offer(o.value, o.rank, o.mapping, o.cost);
  }
};

struct Worker {
  Best best;
  RejectionTally tally;
  int64_t priced = 0, valid = 0;
};

class Searcher {
 public:
  Searcher(const MapSpace& space, const SearchOptions& o) : s_(space), o_(o) {}

  // Prices a candidate that passed (or needs no) pre-check. Returns +inf when infeasible.
  double price(const Mapping& m, Worker& w, Cost& cost) const {
    ++w.priced;
    cost = evaluate(s_.problem(), s_.arch(), m);
    if (!cost.valid) {
      // The pre-check should have caught this; name the reason the slow way.
      MappingIssue issue;
      check_mapping(s_.problem(), s_.arch(), m, &issue);
      const std::string where = issue.level >= 0 && issue.level < s_.arch().num_levels()
                                    ? s_.arch().levels[issue.level].name + ": "
                                    : std::string("mapping: ");
      w.tally.add_text(where + issue.what);
      return std::numeric_limits<double>::infinity();
    }
    ++w.valid;
    return objective_value(cost, o_.objective);
  }

  // Pre-check, then price. +inf (and a tally entry) when rejected.
  double try_candidate(const Mapping& m, Worker& w, Cost& cost) const {
    Reject rule;
    int level, op;
    if (!s_.precheck(m, &rule, &level, &op)) {
      w.tally.add(rule, level, op);
      return std::numeric_limits<double>::infinity();
    }
    return price(m, w, cost);
  }

  // ---- exhaustive ----
  void exhaustive(int t, int threads, Worker& w) const {
    int64_t index = 0;
    Mapping m;
    Cost cost;
    s_.for_each_tiling(
        [&](const Mapping& tiling) {
          const int64_t unit = index++;
          if ((unit / kTilingBlock) % threads != t) return true;
          m = tiling;
          const int sl = s_.stationary_level(m);
          std::array<const std::vector<LoopOrder>*, kMaxLevels> lists{};
          const int L = s_.levels();
          for (int l = 0; l < L; ++l) {
            lists[l] = &s_.orders_for(m, l, sl);
            if (lists[l]->empty()) {  // no order of this level keeps the operand stationary
              w.tally.add(Reject::stationary, l, s_.constraints().stationary);
              return true;
            }
          }
          std::array<size_t, kMaxLevels> pick{};
          for (int l = 0; l < L; ++l) m.levels[l].order = (*lists[l])[0];
          for (int64_t item = 0;; ++item) {
            const double v = price(m, w, cost);
            if (cost.valid) w.best.offer(v, {unit, item}, m, cost);
            int l = 0;  // mixed-radix increment over the levels' order lists
            for (; l < L; ++l) {
              if (++pick[l] < lists[l]->size()) {
                m.levels[l].order = (*lists[l])[pick[l]];
                break;
              }
              pick[l] = 0;
              m.levels[l].order = (*lists[l])[0];
            }
            if (l == L) break;
          }
          return true;
        },
        t == 0 ? &w.tally : nullptr);  // every thread walks the same tree: count prunes once
  }

  // ---- random sampling ----

  // A random tiling: whole dimensions in their slot, then each prime factor of every
  // other loop into a random allowed slot where it still fits (fan-out and capacity of
  // every level it enlarges), else the outermost allowed slot. Orders: random candidates.
  void sample(Rng& rng, Mapping& m) const {
    const int L = s_.levels();
    m = Mapping{};
    m.num_levels = L;
    std::array<DimArray, kMaxLevels + 1> ext;
    for (auto& e : ext) e.fill(1);
    std::array<int64_t, kMaxLevels> xp, yp;
    xp.fill(1), yp.fill(1);
    auto place = [&](int d, int slot, int64_t f) {
      slot_factor(m, slot, d) *= f;
      const int l = slot / kSlotKinds;
      for (int j = 0; j <= l; ++j) ext[j][d] *= f;
      if (slot % kSlotKinds == kSlotX) xp[l] *= f;
      if (slot % kSlotKinds == kSlotY) yp[l] *= f;
    };
    std::array<std::pair<int8_t, int64_t>, kNumDims * 63> items;  // (dim, prime); bounds < 2^63
    int n = 0;
    for (int d = 0; d < kNumDims; ++d) {
      const std::vector<int>& slots = s_.slots(d);
      if (slots.empty()) continue;
      if (slots.size() == 1) {
        place(d, slots[0], s_.problem().bound[d]);
        continue;
      }
      for (int64_t p : s_.primes(d)) items[n++] = {static_cast<int8_t>(d), p};
    }
    for (int i = n - 1; i > 0; --i) std::swap(items[i], items[rng.below(i + 1)]);
    std::array<int, kMaxSlots> cand;
    for (int i = 0; i < n; ++i) {
      const int d = items[i].first;
      const int64_t p = items[i].second;
      const std::vector<int>& slots = s_.slots(d);
      int k = 0;
      for (int sl : slots) cand[k++] = sl;
      bool done = false;
      while (k > 0 && !done) {
        const int j = static_cast<int>(rng.below(k));
        const int slot = cand[j];
        cand[j] = cand[--k];
        const int l = slot / kSlotKinds, kind = slot % kSlotKinds;
        if (kind == kSlotX && xp[l] * p > s_.arch().levels[l].fanout.x) continue;
        if (kind == kSlotY && yp[l] * p > s_.arch().levels[l].fanout.y) continue;
        place(d, slot, p);
        bool ok = true;
        int op;
        for (int j2 = 0; j2 <= l && ok; ++j2) ok = s_.fits(j2, ext[j2], &op);
        if (ok) {
          done = true;
        } else {
          slot_factor(m, slot, d) /= p;
          for (int j2 = 0; j2 <= l; ++j2) ext[j2][d] /= p;
          if (kind == kSlotX) xp[l] /= p;
          if (kind == kSlotY) yp[l] /= p;
        }
      }
      if (!done) place(d, slots.back(), p);  // outermost slot; the pre-check will name it
    }
    random_orders(rng, m);
  }

  void random_orders(Rng& rng, Mapping& m) const {
    const int sl = s_.stationary_level(m);
    for (int l = 0; l < s_.levels(); ++l) {
      const std::vector<LoopOrder>& list = s_.orders_for(m, l, sl);
      if (!list.empty()) m.levels[l].order = list[rng.below(list.size())];
    }
  }

  void random(int t, int threads, int64_t budget, Worker& w) const {
    const int64_t chunks = (budget + kSampleChunk - 1) / kSampleChunk;
    Mapping m;
    Cost cost;
    for (int64_t c = t; c < chunks; c += threads) {
      Rng rng(o_.seed, static_cast<uint64_t>(c));
      const int64_t n = std::min(kSampleChunk, budget - c * kSampleChunk);
      for (int64_t i = 0; i < n; ++i) {
        sample(rng, m);
        const double v = try_candidate(m, w, cost);
        if (v < std::numeric_limits<double>::infinity()) w.best.offer(v, {c, i}, m, cost);
      }
    }
  }

  // ---- simulated annealing ----

  // Moves part of a random loop's factor between two of its slots. False if no loop can move.
  bool move_factor(Rng& rng, Mapping& m) const {
    std::array<int, kNumDims> movable;
    int n = 0;
    for (int d = 0; d < kNumDims; ++d)
      if (s_.slots(d).size() > 1) movable[n++] = d;
    if (n == 0) return false;
    const int d = movable[rng.below(n)];
    return move_part(rng, m, d);
  }

  // Moves part of one loop's factor from one of its slots to another: half the time one
  // prime factor (a small step), otherwise any divisor of the source factor, so that a
  // whole factor such as 7 or 16 can change level in one move.
  bool move_part(Rng& rng, Mapping& m, int d) const {
    const std::vector<int>& slots = s_.slots(d);
    std::array<int, kMaxSlots> src;
    int k = 0;
    for (int sl : slots)
      if (slot_factor(m, sl, d) > 1) src[k++] = sl;
    if (k == 0) return false;
    const int from = src[rng.below(k)];
    int to = slots[rng.below(slots.size() - 1)];
    if (to == from) to = slots.back();
    move_between(rng, m, d, from, to);
    return true;
  }

  void move_between(Rng& rng, Mapping& m, int d, int from, int to) const {
    const int64_t f = slot_factor(m, from, d);
    std::array<int64_t, 256> ps;
    int np = 0;
    if (rng.below(2) == 0) {
      for (int64_t p : s_.primes(d))
        if (f % p == 0 && np < 256) ps[np++] = p;
    } else {
      for (int64_t p : s_.divisors(d))
        if (p > 1 && f % p == 0 && np < 256) ps[np++] = p;
    }
    const int64_t p = ps[rng.below(np)];
    slot_factor(m, from, d) /= p;
    slot_factor(m, to, d) *= p;
  }

  // Two loops trade between two slots both may use: part of one loop's factor goes from
  // slot a to slot b, part of the other's from b to a. Keeps a full buffer about as full
  // (more K in the register file for less C, say), which single moves cannot do.
  bool exchange(Rng& rng, Mapping& m) const {
    std::array<int, kNumDims> movable;
    int n = 0;
    for (int d = 0; d < kNumDims; ++d)
      if (s_.slots(d).size() > 1) movable[n++] = d;
    if (n < 2) return false;
    const int a = movable[rng.below(n)];
    int b = movable[rng.below(n - 1)];
    if (b == a) b = movable[n - 1];
    std::array<int, kMaxSlots> from, to;
    int nf = 0, nt = 0;
    for (int sl : s_.slots(a)) {
      if (!s_.allowed(b, sl)) continue;
      if (slot_factor(m, sl, a) > 1) from[nf++] = sl;
      if (slot_factor(m, sl, b) > 1) to[nt++] = sl;
    }
    if (nf == 0 || nt == 0) return false;
    const int sa = from[rng.below(nf)];
    const int sb = to[rng.below(nt)];
    if (sa == sb) return false;
    move_between(rng, m, a, sa, sb);
    move_between(rng, m, b, sb, sa);
    return true;
  }

  bool move_order(Rng& rng, Mapping& m) const {
    const int sl = s_.stationary_level(m);
    std::array<int, kMaxLevels> levels;
    int n = 0;
    for (int l = 0; l < s_.levels(); ++l)
      if (s_.orders_for(m, l, sl).size() > 1) levels[n++] = l;
    if (n == 0) return false;
    const int l = levels[rng.below(n)];
    const std::vector<LoopOrder>& list = s_.orders_for(m, l, sl);
    m.levels[l].order = list[rng.below(list.size())];
    return true;
  }

  // After a factor move the stationary rule may fail at a level whose loops changed:
  // give that level a candidate order that obeys it, if there is one.
  void repair_stationary(Rng* rng, Mapping& m) const {
    const int sl = s_.stationary_level(m);
    if (sl < 0) return;
    const std::vector<LoopOrder>& list = s_.orders_for(m, sl, sl);
    if (list.empty()) return;
    const LoopOrder& cur = m.levels[sl].order;
    if (std::find(list.begin(), list.end(), cur) != list.end()) return;
    int at = -1;
    const int d = innermost_temporal_loop_above(m, s_.constraints().array_level, &at);
    if (d < 0 || !relevant(s_.constraints().stationary, d)) return;
    m.levels[sl].order = rng ? list[rng->below(list.size())] : list[0];
  }

  // Local search from `m` until nothing improves or `budget` runs out: steepest descent
  // over every single move (each divisor of a loop's factor in a slot to each other slot,
  // each candidate order of each level), then, when that is stuck, a large-neighbourhood
  // step (resplit) that re-divides several loops between two slots at once.
  void polish(Mapping& m, double& value, Cost& best_cost, int64_t& budget, Worker& w) const {
    while (budget > 0) {
      descend(m, value, best_cost, budget, w);
      if (budget <= 0 || !resplit(m, value, best_cost, budget, w)) break;
    }
  }

  void descend(Mapping& m, double& value, Cost& best_cost, int64_t& budget, Worker& w) const {
    Mapping cand, step_best;
    Cost cost;
    while (budget > 0) {
      double step_value = value;
      bool improved = false;
      auto consider = [&](Mapping& c) {
        if (budget <= 0) return;
        --budget;
        const double v = try_candidate(c, w, cost);
        if (v < step_value) step_value = v, step_best = c, best_cost = cost, improved = true;
      };
      for (int d = 0; d < kNumDims && budget > 0; ++d) {
        const std::vector<int>& slots = s_.slots(d);
        if (slots.size() < 2) continue;
        for (int from : slots) {
          const int64_t f = slot_factor(m, from, d);
          for (int64_t p : s_.divisors(d)) {
            if (p == 1 || f % p != 0) continue;
            for (int to : slots) {
              if (to == from) continue;
              cand = m;
              slot_factor(cand, from, d) /= p;
              slot_factor(cand, to, d) *= p;
              repair_stationary(nullptr, cand);
              consider(cand);
            }
          }
        }
      }
      const int sl = s_.stationary_level(m);
      for (int l = 0; l < s_.levels() && budget > 0; ++l)
        for (const LoopOrder& o : s_.orders_for(m, l, sl)) {
          if (o == m.levels[l].order) continue;
          cand = m;
          cand.levels[l].order = o;
          consider(cand);
        }
      if (!improved) break;
      m = step_best;
      value = step_value;
    }
  }

  // For each pair of slots (a, b) in turn: every way to re-divide, between a and b, the
  // factors that the loops allowed in both hold there (the other slots fixed), each with
  // every candidate order of the levels whose temporal loops change. Takes the best
  // re-division of the first pair that improves on `m`; false if none does. This is the
  // move that single steps cannot make: moving, say, Q7 out to DRAM while P4 and Q2 come
  // into the buffer, when each step alone overflows it or costs more.
  bool resplit(Mapping& m, double& value, Cost& best_cost, int64_t& budget, Worker& w) const {
    std::array<bool, kMaxSlots> used{};
    for (int d = 0; d < kNumDims; ++d)
      for (int sl : s_.slots(d)) used[sl] = true;
    std::vector<std::vector<int64_t>> splits(kNumDims);  // per listed loop: factors for slot a
    Mapping cand, best;
    Cost cost;
    for (int a = 0; a < kMaxSlots; ++a) {
      if (!used[a]) continue;
      for (int b = a + 1; b < kMaxSlots; ++b) {
        if (!used[b]) continue;
        std::array<int, kNumDims> dims{};
        std::array<int64_t, kNumDims> g{};
        int nd = 0;
        int64_t combos = 1;
        for (int d = 0; d < kNumDims; ++d) {
          if (!s_.allowed(d, a) || !s_.allowed(d, b)) continue;
          const int64_t gd = slot_factor(m, a, d) * slot_factor(m, b, d);
          if (gd == 1) continue;
          splits[nd].clear();
          for (int64_t f : s_.divisors(d))
            if (gd % f == 0) splits[nd].push_back(f);
          dims[nd] = d, g[nd] = gd, combos *= static_cast<int64_t>(splits[nd].size());
          ++nd;
        }
        if (nd < 2) continue;  // one loop alone: a single move covers it
        const int la = a / kSlotKinds, lb = b / kSlotKinds;
        const bool ta = a % kSlotKinds == kSlotTemporal, tb = b % kSlotKinds == kSlotTemporal;
        if (combos * 64 > budget) continue;  // (64: at most 8 x 8 order pairs)
        double pair_best = value;
        std::array<size_t, kNumDims> pick{};
        for (;;) {
          cand = m;
          for (int i = 0; i < nd; ++i) {
            slot_factor(cand, a, dims[i]) = splits[i][pick[i]];
            slot_factor(cand, b, dims[i]) = g[i] / splits[i][pick[i]];
          }
          const int sl = s_.stationary_level(cand);
          const std::vector<LoopOrder>* oa = ta ? &s_.orders_for(cand, la, sl) : nullptr;
          const std::vector<LoopOrder>* ob = tb && lb != la ? &s_.orders_for(cand, lb, sl) : nullptr;
          const size_t na = oa && !oa->empty() ? oa->size() : 1, nb = ob && !ob->empty() ? ob->size() : 1;
          for (size_t i = 0; i < na && budget > 0; ++i)
            for (size_t j = 0; j < nb && budget > 0; ++j) {
              if (oa && !oa->empty()) cand.levels[la].order = (*oa)[i];
              if (ob && !ob->empty()) cand.levels[lb].order = (*ob)[j];
              --budget;
              const double v = try_candidate(cand, w, cost);
              if (v < pair_best) pair_best = v, best = cand, best_cost = cost;
            }
          int i = 0;
          for (; i < nd; ++i) {
            if (++pick[i] < splits[i].size()) break;
            pick[i] = 0;
          }
          if (i == nd || budget <= 0) break;
        }
        if (pair_best < value) {
          m = best;
          value = pair_best;
          return true;
        }
      }
    }
    return false;
  }

  // One annealing run from the best of a few random starts, then a polish of its best.
  // Returns false when no start was valid. Spends at most `budget`; subtracts what it used.
  bool anneal_run(Rng& rng, int64_t& budget, int64_t sa_steps, int64_t polish_cap, Mapping& best,
                  double& best_v, Cost& best_cost, Worker& w) const {
    Mapping cur, cand;
    Cost cost;
    double cur_v = std::numeric_limits<double>::infinity();
    const int64_t starts = std::min<int64_t>(16, budget);
    int64_t used = 0;
    for (int64_t i = 0; i < starts; ++i, ++used) {
      sample(rng, cand);
      const double v = try_candidate(cand, w, cost);
      if (v < cur_v) cur_v = v, cur = cand, best_cost = cost;
    }
    budget -= used;
    if (cur_v == std::numeric_limits<double>::infinity()) return false;
    best = cur, best_v = cur_v;
    sa_steps = std::min(sa_steps, budget);
    // Temperature on the log of the objective: at the start a move that makes it 25% worse
    // passes about 40% of the time, at the end practically never.
    const double t_hot = 0.25, t_cold = 0.002;
    for (int64_t step = 0; step < sa_steps; ++step) {
      const double temp = t_hot * std::pow(t_cold / t_hot, static_cast<double>(step) / static_cast<double>(sa_steps));
      cand = cur;
      const double r = rng.uniform();
      const bool moved = r < 0.55 ? move_factor(rng, cand) : r < 0.75 ? exchange(rng, cand) : move_order(rng, cand);
      if (!moved) continue;
      repair_stationary(&rng, cand);
      const double v = try_candidate(cand, w, cost);
      if (v == std::numeric_limits<double>::infinity()) continue;
      const double delta = std::log(v) - std::log(cur_v);
      if (delta <= 0 || rng.uniform() < std::exp(-delta / temp)) {
        cur = cand, cur_v = v;
        if (v < best_v) best = cand, best_v = v, best_cost = cost;
      }
    }
    budget -= sa_steps;
    int64_t polish_budget = std::min(budget, polish_cap);
    budget -= polish_budget;
    polish(best, best_v, best_cost, polish_budget, w);
    budget += polish_budget;  // polish leaves what it did not use
    return true;
  }

  // A chain: annealing runs from fresh random starts until its budget is spent (restarts
  // find other basins; the polish of each run settles its own). Keeps the best run.
  void anneal_chain(int chain, int64_t budget, Worker& w) const {
    Rng rng(o_.seed, 0x5eed0000ull + static_cast<uint64_t>(chain));
    Mapping m;
    Cost cost;
    double v = 0;
    for (int64_t run = 0; budget > 0; ++run) {
      if (!anneal_run(rng, budget, kRunSteps, kPolishCap, m, v, cost, w)) continue;
      w.best.offer(v, {chain, run}, m, cost);
    }
  }

 private:
  const MapSpace& s_;
  const SearchOptions& o_;
};

template <class Fn>
void run_workers(int threads, std::vector<Worker>& workers, Fn fn) {
  workers.assign(static_cast<size_t>(threads), Worker{});
  if (threads == 1) {
    fn(0, workers[0]);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { fn(t, workers[static_cast<size_t>(t)]); });
  for (std::thread& th : pool) th.join();
}

}  // namespace

const char* name_of(SearchMethod m) {
  switch (m) {
    case SearchMethod::automatic: return "auto";
    case SearchMethod::exhaustive: return "exhaustive";
    case SearchMethod::random: return "random";
    case SearchMethod::anneal: return "anneal";
  }
  return "?";
}

SearchResult search_mappings(const Problem& problem, const HierarchyConfig& arch,
                             const MappingConstraints& constraints, const SearchOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  SearchResult result;
  const MapSpace space(problem, arch, constraints);
  auto finish = [&] {
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result;
  };
  if (!space.empty_reason().empty()) {
    result.method_used = options.method == SearchMethod::automatic ? SearchMethod::exhaustive : options.method;
    result.rejections.emplace_back(space.empty_reason(), 1);
    return finish();
  }
  SearchMethod method = options.method;
  if (method == SearchMethod::automatic)
    method = space.count_candidates(kExhaustiveLimit) <= kExhaustiveLimit ? SearchMethod::exhaustive
                                                                          : SearchMethod::anneal;
  result.method_used = method;
  const int threads = std::max(1, options.threads);
  const Searcher searcher(space, options);
  std::vector<Worker> workers;
  switch (method) {
    case SearchMethod::exhaustive:
      run_workers(threads, workers, [&](int t, Worker& w) { searcher.exhaustive(t, threads, w); });
      break;
    case SearchMethod::random: {
      const int64_t budget = options.budget > 0 ? options.budget : kRandomBudget;
      run_workers(threads, workers, [&](int t, Worker& w) { searcher.random(t, threads, budget, w); });
      break;
    }
    case SearchMethod::anneal:
    case SearchMethod::automatic: {
      const int64_t budget = options.budget > 0 ? options.budget : kAnnealBudget;
      run_workers(threads, workers, [&](int t, Worker& w) {
        for (int c = t; c < kAnnealChains; c += threads)
          searcher.anneal_chain(c, budget / kAnnealChains + (c < budget % kAnnealChains ? 1 : 0), w);
      });
      break;
    }
  }
  Best best;
  RejectionTally tally;
  for (const Worker& w : workers) {
    best.merge(w.best);
    tally.merge(w.tally);
    result.evaluated += w.priced;
    result.valid += w.valid;
  }
  result.evaluated += tally.keyed_total();  // pre-check rejections and pruned branches
  result.found = best.found;
  if (best.found) {
    result.best = best.mapping;
    result.cost = best.cost;
  }
  result.rejections = tally.sorted(arch, constraints);
  return finish();
}

}  // namespace loom
