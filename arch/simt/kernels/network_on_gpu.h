// A whole network on the SIMT GPU model: every layer launches the shipped kernel the
// layer-to-kernel rule picks (layer_kernels.h), simulated cycle by cycle. Layers with the
// same launch (ResNet's repeated blocks) are simulated once: the model is deterministic, so
// the repeat's statistics are identical by construction.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_energy.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/kernels/layer_kernels.h"
#include "sim/layer_store.h"
#include "workloads/network.h"

namespace loom::simt {

struct GpuLayerRun {
  const Layer* layer = nullptr;
  LayerLaunch launch;
  GpuStats stats;
  GpuEnergy energy;
  bool reused = false;  // statistics taken from an earlier layer with the same launch
};

// progress(done, total) after each layer. `store`: the statistics of layers an interrupted
// run already simulated (taken instead of simulating them), and where to keep each layer's.
std::vector<GpuLayerRun> run_network_on_gpu(const Network& network, const GpuConfig& config, GpuPrecision precision,
                                            const std::function<void(size_t, size_t)>& progress = {},
                                            const LayerStore<GpuStats>& store = {});

}  // namespace loom::simt
