#include "sweep/pareto.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace loom {

ObjectiveVector objective_vector(const Json& metrics, const std::vector<SweepObjective>& objectives) {
  ObjectiveVector v;
  v.reserve(objectives.size());
  for (const SweepObjective& o : objectives) {
    const double x = metrics.at(o.metric).get<double>();
    v.push_back(o.maximize ? -x : x);
  }
  return v;
}

bool dominates(const ObjectiveVector& a, const ObjectiveVector& b) {
  bool better = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) better = true;
  }
  return better;
}

static std::vector<size_t> lexicographic_order(const std::vector<ObjectiveVector>& points) {
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return points[a] < points[b]; });
  return order;
}

std::vector<size_t> pareto_front(const std::vector<ObjectiveVector>& points) {
  // In lexicographic order a point can only be dominated by one before it, and if it is
  // dominated at all, some point already on the front dominates it (transitivity).
  std::vector<size_t> front;
  for (size_t p : lexicographic_order(points)) {
    const bool dominated =
        std::any_of(front.begin(), front.end(), [&](size_t f) { return dominates(points[f], points[p]); });
    if (!dominated) front.push_back(p);
  }
  return front;
}

std::vector<std::vector<size_t>> non_dominated_fronts(const std::vector<ObjectiveVector>& points) {
  const size_t n = points.size();
  std::vector<std::vector<size_t>> dominated_by_me(n);
  std::vector<size_t> domination_count(n, 0);
  std::vector<std::vector<size_t>> fronts(1);
  for (size_t p = 0; p < n; ++p) {
    for (size_t q = 0; q < n; ++q) {
      if (dominates(points[p], points[q])) {
        dominated_by_me[p].push_back(q);
      } else if (dominates(points[q], points[p])) {
        ++domination_count[p];
      }
    }
    if (domination_count[p] == 0) fronts[0].push_back(p);
  }
  while (!fronts.back().empty()) {
    std::vector<size_t> next;
    for (size_t p : fronts.back()) {
      for (size_t q : dominated_by_me[p]) {
        if (--domination_count[q] == 0) next.push_back(q);
      }
    }
    std::sort(next.begin(), next.end());
    fronts.push_back(std::move(next));
  }
  fronts.pop_back();
  return fronts;
}

std::vector<double> crowding_distances(const std::vector<ObjectiveVector>& points, const std::vector<size_t>& front) {
  const size_t n = front.size();
  std::vector<double> distance(n, 0.0);
  if (n == 0) return distance;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<size_t> order(n);
  for (size_t m = 0; m < points[front[0]].size(); ++m) {
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return points[front[a]][m] < points[front[b]][m]; });
    const double lo = points[front[order.front()]][m], hi = points[front[order.back()]][m];
    distance[order.front()] = distance[order.back()] = inf;
    if (hi <= lo) continue;
    for (size_t i = 1; i + 1 < n; ++i) {
      distance[order[i]] += (points[front[order[i + 1]]][m] - points[front[order[i - 1]]][m]) / (hi - lo);
    }
  }
  return distance;
}

}  // namespace loom
