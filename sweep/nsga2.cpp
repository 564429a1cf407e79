#include "sweep/nsga2.h"

#include <algorithm>
#include <limits>
#include <set>

#include "sweep/random_sample.h"

namespace loom {

Nsga2::Nsga2(const DesignSpace& space, const SweepStrategy& strategy)
    : space_(&space), strategy_(strategy), rng_(strategy.seed) {}

std::vector<int64_t> Nsga2::initial_population() {
  const int64_t n = std::min<int64_t>(strategy_.population, space_->size());
  return random_sample(space_->size(), n, rng_());
}

bool Nsga2::better(int64_t a, int64_t b) const {
  auto find = [&](int64_t p) {
    auto it = std::lower_bound(standing_.begin(), standing_.end(), p,
                               [](const auto& e, int64_t x) { return e.first < x; });
    return it->second;
  };
  const Standing sa = find(a), sb = find(b);
  if (sa.rank != sb.rank) return sa.rank < sb.rank;
  return sa.crowding > sb.crowding;
}

int64_t Nsga2::tournament(const std::vector<int64_t>& population) {
  const int64_t a = population[draw_below(rng_, static_cast<int64_t>(population.size()))];
  const int64_t b = population[draw_below(rng_, static_cast<int64_t>(population.size()))];
  return better(b, a) ? b : a;
}

std::vector<int64_t> Nsga2::offspring(const std::vector<int64_t>& population) {
  const size_t genes = space_->dimensions();
  const double mutation = strategy_.mutation > 0 ? strategy_.mutation : 1.0 / static_cast<double>(genes);
  std::set<int64_t> taken(population.begin(), population.end());
  std::vector<int64_t> children;
  const size_t wanted = population.size();
  // Bounded attempts: in a small space every neighbour may already be taken.
  for (size_t attempt = 0; children.size() < wanted && attempt < 20 * wanted; ++attempt) {
    const std::vector<int64_t> a = space_->digits(tournament(population));
    const std::vector<int64_t> b = space_->digits(tournament(population));
    std::vector<int64_t> child(genes);
    for (size_t g = 0; g < genes; ++g) {
      child[g] = (rng_() & 1) ? a[g] : b[g];
      const int64_t values = space_->values_of(g);
      if (values > 1 && static_cast<double>(rng_() >> 11) * 0x1.0p-53 < mutation) {
        child[g] = (child[g] + 1 + draw_below(rng_, values - 1)) % values;  // any other value
      }
    }
    const int64_t index = space_->index_of(child);
    if (taken.insert(index).second) children.push_back(index);
  }
  return children;
}

std::vector<int64_t> Nsga2::select(const std::vector<int64_t>& candidates,
                                   const std::function<const Fitness&(int64_t)>& fitness) {
  std::vector<int64_t> pool(candidates);
  std::sort(pool.begin(), pool.end());
  pool.erase(std::unique(pool.begin(), pool.end()), pool.end());

  // Feasible points are ranked by non-domination; infeasible ones follow, by violation.
  std::vector<int64_t> feasible, infeasible;
  for (int64_t p : pool) (fitness(p).violation == 0 ? feasible : infeasible).push_back(p);
  std::vector<ObjectiveVector> vectors;
  for (int64_t p : feasible) vectors.push_back(fitness(p).objectives);

  std::vector<std::pair<int64_t, Standing>> ranked;
  const std::vector<std::vector<size_t>> fronts = non_dominated_fronts(vectors);
  for (size_t r = 0; r < fronts.size(); ++r) {
    const std::vector<double> crowd = crowding_distances(vectors, fronts[r]);
    std::vector<std::pair<int64_t, Standing>> level;
    for (size_t i = 0; i < fronts[r].size(); ++i) {
      level.push_back({feasible[fronts[r][i]], Standing{static_cast<int>(r), crowd[i]}});
    }
    std::stable_sort(level.begin(), level.end(), [](const auto& x, const auto& y) {
      return x.second.crowding > y.second.crowding;
    });
    ranked.insert(ranked.end(), level.begin(), level.end());
  }
  std::stable_sort(infeasible.begin(), infeasible.end(),
                   [&](int64_t a, int64_t b) { return fitness(a).violation < fitness(b).violation; });
  const int infeasible_rank = static_cast<int>(fronts.size());
  for (size_t i = 0; i < infeasible.size(); ++i) {
    // Rank by violation order so tournaments prefer the less violating point.
    ranked.push_back({infeasible[i], Standing{infeasible_rank + static_cast<int>(i), 0.0}});
  }

  const size_t keep = std::min<size_t>(ranked.size(), static_cast<size_t>(strategy_.population));
  ranked.resize(keep);
  std::vector<int64_t> next;
  for (const auto& [p, s] : ranked) next.push_back(p);
  standing_ = ranked;
  std::sort(standing_.begin(), standing_.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return next;
}

}  // namespace loom
