// NSGA-II (Deb, Pratap, Agarwal, Meyarivan, IEEE Trans. Evol. Comput. 6(2), 2002) over a
// discrete design space: an individual is a point number, its genes the value index of
// each parameter. Binary tournaments on (rank, crowding), uniform crossover, per-gene
// mutation to another value, and elitist selection of the next population from parents
// plus offspring. Constraints by Deb's rule: feasible points beat infeasible ones, and
// among infeasible ones the smaller violation wins. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "sweep/design_space.h"
#include "sweep/pareto.h"

namespace loom {

// What selection needs to know of an evaluated point.
struct Fitness {
  ObjectiveVector objectives;  // minimised; empty when the point could not be evaluated
  double violation = 0;        // 0 when feasible; larger is worse; infinity for errors
};

class Nsga2 {
 public:
  Nsga2(const DesignSpace& space, const SweepStrategy& strategy);

  // The first population: distinct random points (all of them when the space is smaller).
  std::vector<int64_t> initial_population();
  // Offspring of `population` (which must have been ranked by the last select()).
  std::vector<int64_t> offspring(const std::vector<int64_t>& population);
  // The next population from the union of parents and offspring (duplicates removed).
  std::vector<int64_t> select(const std::vector<int64_t>& candidates,
                              const std::function<const Fitness&(int64_t)>& fitness);

 private:
  struct Standing {
    int rank = 0;
    double crowding = 0;
  };
  int64_t tournament(const std::vector<int64_t>& population);
  bool better(int64_t a, int64_t b) const;

  const DesignSpace* space_;
  SweepStrategy strategy_;
  std::mt19937_64 rng_;
  std::vector<std::pair<int64_t, Standing>> standing_;  // of the last selected population, sorted by point
};

}  // namespace loom
