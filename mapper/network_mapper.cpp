#include "mapper/network_mapper.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "sim/error.h"

namespace loom {

namespace {

// Everything same_shape compares, as an ordered key for the memo table.
using ShapeKey = std::tuple<DimArray, int64_t, int64_t, int64_t, int64_t, int64_t, bool>;

ShapeKey shape_key(const Problem& p) {
  return {p.bound, p.groups, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.is_gemm};
}

}  // namespace

bool same_shape(const Problem& a, const Problem& b) { return shape_key(a) == shape_key(b); }

std::string explain_no_mapping(const SearchResult& result, const std::string& dataflow) {
  const std::string under = dataflow.empty() || dataflow == "none" ? "" : " under dataflow " + dataflow;
  if (result.evaluated == 0) {
    // Nothing was priced: the constraints leave no mapping at all. The search names the
    // rule when it can.
    const std::string why = result.rejections.empty()
                                ? "no mapping satisfies the dataflow's loop rules on this architecture"
                                : result.rejections.front().first;
    return "the map space" + under + " is empty: " + why;
  }
  std::string why;
  // The three most frequent reasons are enough to see which buffer or fan-out is too
  // small; the search already sorts them, most frequent first.
  const size_t shown = std::min<size_t>(result.rejections.size(), 3);
  for (size_t i = 0; i < shown; ++i) {
    if (!why.empty()) why += "; ";
    why += result.rejections[i].first + " (" + std::to_string(result.rejections[i].second) + ")";
  }
  if (why.empty()) why = "every candidate was infeasible";
  return "no mapping fits" + under + ": " + why + " (" + std::to_string(result.evaluated) + " candidates)";
}

SearchResult map_layer(const Problem& problem, const HierarchyConfig& arch, const std::string& dataflow,
                       const SearchOptions& options) {
  const MappingConstraints constraints = constraints_for(dataflow, problem, arch, arch.source_file);
  SearchResult r = search_mappings(problem, arch, constraints, options);
  if (!r.found) throw InputError(arch.source_file, "layer " + problem.layer_name, explain_no_mapping(r, dataflow));
  if (r.cost.cycles > kMaxLayerCycles) {
    const std::string why = r.cost.bottleneck >= 0 ? arch.levels[r.cost.bottleneck].name + "'s bandwidth" : "compute";
    throw InputError(arch.source_file, "layer " + problem.layer_name,
                     "its best mapping takes " + (r.cost.cycles < kCostCyclesCap ? std::to_string(r.cost.cycles)
                                                                                  : std::string("more than 4.6e18")) +
                         " cycles (bound by " + why + "); loom reports layers and runs of up to 10^15 cycles");
  }
  return r;
}

std::vector<LayerMapping> map_network(const Network& network, const HierarchyConfig& arch,
                                      const std::string& dataflow, const SearchOptions& options,
                                      std::function<void(size_t, size_t)> progress,
                                      const LayerStore<SearchResult>& store) {
  std::vector<LayerMapping> out;
  out.reserve(network.layers.size());
  std::map<ShapeKey, size_t> searched;  // shape -> index in `out` of its first layer
  for (const Layer& layer : network.layers) {
    LayerMapping lm;
    lm.layer = layer;
    lm.problem = problem_of(layer, arch.im2col);
    const ShapeKey key = shape_key(lm.problem);
    auto it = searched.find(key);
    lm.reused = it != searched.end();
    lm.searched_as = lm.reused ? it->second : out.size();
    if (std::optional<SearchResult> kept = store.kept(out.size())) {
      lm.result = std::move(*kept);  // a resumed run: mapped before the interruption
    } else {
      // Same shape, same map space, same costs: the search would return the same result.
      lm.result = lm.reused ? out[it->second].result : map_layer(lm.problem, arch, dataflow, options);
      store.finished(out.size(), lm.result);
    }
    if (!lm.reused) searched.emplace(key, out.size());
    out.push_back(std::move(lm));
    if (progress) progress(out.size(), network.layers.size());
  }
  // Each layer is at most kMaxLayerCycles (map_layer), so the sum stops far short of overflow.
  int64_t cycles = 0;
  for (const LayerMapping& lm : out) {
    cycles += lm.result.cost.cycles;
    if (cycles > kMaxLayerCycles) {
      throw InputError(network.source_file, "layers",
                       "this network takes more than 10^15 cycles on " + arch.name + " (after layer '" +
                           lm.layer.name + "': " + std::to_string(cycles) +
                           "); loom reports layers and runs of up to 10^15 cycles");
    }
  }
  return out;
}

}  // namespace loom
