// A network: an ordered list of layers with a name and a source. Loaded from loom's JSON
// network files (docs/workload-schema.md) or SCALE-Sim topology CSV files.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/json_reader.h"
#include "workloads/layer.h"

namespace loom {

struct Network {
  std::string name;
  std::string source;       // citation of the shapes
  std::string source_file;  // file it was loaded from ("<embedded>" for defaults)
  int64_t batch = 1;
  std::vector<Layer> layers;

  int64_t total_macs() const;
};

// MACs of a whole network that loom accepts: every per-network total (MACs, 2 x MACs FLOPs,
// and the per-MAC access counts of the models) stays within a 64-bit integer. Each layer has
// its own limit, kMaxLayerMacs (layer.h); 10^18 is a thousand such layers.
inline constexpr int64_t kMaxNetworkMacs = 1'000'000'000'000'000'000;

// "" when the network's total MACs are within kMaxNetworkMacs, else the rule it breaks.
// Both loaders apply it (field "layers").
std::string network_size_error(const Network& net);

// "a, b, c, ... (N more)": the first `shown` layer names, for errors that list choices.
std::string layer_name_preview(const Network& net, size_t shown = 8);

// Dispatches on the extension: .json (loom) or .csv (SCALE-Sim topology).
Network load_workload(const std::string& path);
Network load_network_json(const std::string& path);
Network parse_network_json(const Json& json, const std::string& file);
// SCALE-Sim topology CSV, conv format or GEMM (M,N,K) format (detected from the header).
Network parse_scalesim_csv(const std::string& text, const std::string& file);

}  // namespace loom
