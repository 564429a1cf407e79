#include "mapper/network_mapper.h"

#include <algorithm>
#include <map>
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
  return r;
}

std::vector<LayerMapping> map_network(const Network& network, const HierarchyConfig& arch,
                                      const std::string& dataflow, const SearchOptions& options,
                                      std::function<void(size_t, size_t)> progress) {
  std::vector<LayerMapping> out;
  out.reserve(network.layers.size());
  std::map<ShapeKey, size_t> searched;  // shape -> index in `out` of its first layer
  for (const Layer& layer : network.layers) {
    LayerMapping lm;
    lm.layer = layer;
    lm.problem = problem_of(layer, arch.im2col);
    const ShapeKey key = shape_key(lm.problem);
    auto it = searched.find(key);
    if (it != searched.end()) {
      // Same shape, same map space, same costs: the search would return the same result.
      lm.result = out[it->second].result;
      lm.reused = true;
      lm.searched_as = it->second;
    } else {
      lm.result = map_layer(lm.problem, arch, dataflow, options);
      lm.searched_as = out.size();
      searched.emplace(key, out.size());
    }
    out.push_back(std::move(lm));
    if (progress) progress(out.size(), network.layers.size());
  }
  return out;
}

}  // namespace loom
