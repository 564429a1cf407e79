// Mapping search over the map space of one layer on one architecture under a dataflow's
// constraints: exhaustive enumeration of factorizations and loop orders with pruning of
// equivalent orders and of tiles that cannot fit, seeded random sampling, and simulated
// annealing. Multithreaded, and deterministic for a given seed whatever the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mapper/constraints.h"
#include "mapper/cost_model.h"

namespace loom {

enum class SearchMethod { automatic, exhaustive, random, anneal };
const char* name_of(SearchMethod m);

struct SearchOptions {
  Objective objective = Objective::edp;
  SearchMethod method = SearchMethod::automatic;  // exhaustive when the space is small
  int64_t budget = 0;   // evaluations for random / anneal; 0 = the method's default
  uint64_t seed = 1;
  int threads = 1;
};

struct SearchResult {
  bool found = false;
  Mapping best;
  Cost cost;
  SearchMethod method_used = SearchMethod::exhaustive;
  int64_t evaluated = 0;  // mappings priced by the cost model
  int64_t valid = 0;      // of those, feasible
  double seconds = 0;
  // Why candidates were rejected, most frequent first, e.g. {"GLB: inputs tile exceeds
  // capacity", 1200}. Used to explain "no valid mapping".
  std::vector<std::pair<std::string, int64_t>> rejections;
};

SearchResult search_mappings(const Problem& problem, const HierarchyConfig& arch,
                             const MappingConstraints& constraints, const SearchOptions& options);

}  // namespace loom
