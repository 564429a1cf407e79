// `loom run` on a "kind": "gpu" architecture: the per-layer table, report.json (the run
// schema of docs/report-schema.md with a "gpu" block per layer), layers.csv and
// resolved_config.json for a network whose layers ran on the SIMT model.
#pragma once

#include <string>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/network_on_gpu.h"
#include "sim/json_reader.h"
#include "workloads/network.h"

namespace loom {

struct GpuNetworkContext {
  const simt::GpuConfig* config = nullptr;
  const Network* network = nullptr;
  simt::GpuPrecision precision = simt::GpuPrecision::fp16;
};

Json gpu_network_report_to_json(const std::vector<simt::GpuLayerRun>& runs, const GpuNetworkContext& ctx);
std::string gpu_network_layers_csv(const std::vector<simt::GpuLayerRun>& runs, const GpuNetworkContext& ctx);
std::string format_gpu_network_table(const std::vector<simt::GpuLayerRun>& runs, const GpuNetworkContext& ctx);

}  // namespace loom
