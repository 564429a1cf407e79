// Runs a network on a systolic accelerator with the fast cycle model: plans folds and
// DRAM traffic for every layer (layer_plan.h; rejecting impossible layers before anything
// runs), plays them on the SystemC engine, and prices the counted events with the energy
// table. The analytic model (systolic_analytic.h) shares the plans and replaces the engine.
#pragma once

#include <functional>

#include "arch/systolic/layer_timing.h"
#include "arch/systolic/systolic_config.h"
#include "arch/systolic/systolic_result.h"
#include "sim/energy_table.h"
#include "sim/layer_store.h"
#include "workloads/network.h"

namespace loom {

struct SimulationOptions {
  bool scalesim_compat = false;
  // Called after each layer with (layers done, layer count).
  std::function<void(size_t, size_t)> progress;
  // Layers an interrupted run already simulated, and where to keep the newly simulated ones.
  LayerStore<LayerTiming> store;
};

NetworkResult simulate_network(const SystolicConfig& config, const Network& network,
                               const EnergyTable& energy, const SimulationOptions& options);

ArrayGeometry geometry_of(const SystolicConfig& config, bool scalesim_compat);

}  // namespace loom
