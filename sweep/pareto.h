// Pareto dominance over objective vectors. Every objective is minimised here: a maximised
// one (throughput per area) enters negated, so one rule serves all.
#pragma once

#include <cstddef>
#include <vector>

#include "sweep/sweep_spec.h"

namespace loom {

using ObjectiveVector = std::vector<double>;

// The point's objectives from its "metrics" object, maximised ones negated.
ObjectiveVector objective_vector(const Json& metrics, const std::vector<SweepObjective>& objectives);

// a is no worse than b in every objective and better in at least one.
bool dominates(const ObjectiveVector& a, const ObjectiveVector& b);

// Positions of the non-dominated vectors, ordered by the first objective (ties: by
// position). Points with equal vectors are all kept. O(n log n + n x front size).
std::vector<size_t> pareto_front(const std::vector<ObjectiveVector>& points);

// NSGA-II's fast non-dominated sort (Deb et al., IEEE TEC 2002): fronts[0] is the Pareto
// front, fronts[1] the front once it is removed, and so on.
std::vector<std::vector<size_t>> non_dominated_fronts(const std::vector<ObjectiveVector>& points);

// NSGA-II's crowding distance of each member of one front (parallel to `front`); the
// extremes of every objective get infinity.
std::vector<double> crowding_distances(const std::vector<ObjectiveVector>& points, const std::vector<size_t>& front);

}  // namespace loom
