// Maps every layer of a network onto a hierarchy: one map-space search per distinct
// layer shape (ResNet-50 repeats a handful of block shapes dozens of times, so searching
// each shape once is most of the win), under one dataflow's constraints.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "arch/hierarchy/hierarchy_config.h"
#include "mapper/problem.h"
#include "mapper/search.h"
#include "sim/layer_store.h"
#include "workloads/network.h"

namespace loom {

struct LayerMapping {
  Layer layer;
  Problem problem;
  SearchResult result;        // found is always true (map_network throws otherwise)
  bool reused = false;        // copied from an earlier layer of the same shape
  size_t searched_as = 0;     // index of the layer whose search produced `result`
};

// The shape that decides a layer's map space and costs: bounds, strides, dilations,
// groups and whether it is printed as a GEMM. Two problems with equal keys have the same
// best mapping.
bool same_shape(const Problem& a, const Problem& b);

// The longest layer, and run, loom reports on a hierarchy: the systolic models' 10^15 cycles
// (layer_plan.h), which keeps every network total far from 64-bit overflow.
inline constexpr int64_t kMaxLayerCycles = 1'000'000'000'000'000;

// Searches each distinct shape once (in network order) and copies the result to the
// repeats. `progress(done, total)` is called after each layer. Throws InputError (file:
// the architecture, field "layer NAME") naming the most frequent rejection reasons when a
// layer has no valid mapping, and for a dataflow the architecture cannot run; and (file: the
// network, field "layers") when the layers take more than kMaxLayerCycles in all. `store`: the
// searches of layers an interrupted run already mapped (taken instead of searching again),
// and where to keep each layer's.
std::vector<LayerMapping> map_network(const Network& network, const HierarchyConfig& arch,
                                      const std::string& dataflow, const SearchOptions& options,
                                      std::function<void(size_t, size_t)> progress,
                                      const LayerStore<SearchResult>& store = {});

// Maps one layer (used by map_network and `loom map`); same errors, and InputError when the
// best mapping takes more than kMaxLayerCycles.
SearchResult map_layer(const Problem& problem, const HierarchyConfig& arch, const std::string& dataflow,
                       const SearchOptions& options);

// "no mapping fits: <reason> (<count>); ... (<evaluated> candidates)": the explanation
// map_network puts in its error, from a search that found nothing.
std::string explain_no_mapping(const SearchResult& result, const std::string& dataflow);

}  // namespace loom
