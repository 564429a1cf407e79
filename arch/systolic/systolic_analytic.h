// The analytic fidelity of the systolic model, for design-space sweeps: the same layer plans
// as the cycle model (layer_plan.h: folds, closed-form fold costs, DRAM traffic, counts), but
// cycles from a closed-form overlap of each fold's compute with its DRAM transfers instead
// of the SystemC engine. Equal to the cycle model whenever DRAM is unlimited; within a few
// per cent otherwise (docs/systolic-conventions.md, "Analytic model"). Touches no SystemC
// and no global mutable state, so several threads may estimate at once.
#pragma once

#include "arch/systolic/systolic_config.h"
#include "arch/systolic/systolic_result.h"
#include "sim/energy_table.h"
#include "workloads/network.h"

namespace loom {

// Closed-form network estimate: same NetworkResult as simulate_network (same layer records,
// SRAM counts, DRAM bytes, energy), with cycles from a closed-form overlap of compute and DRAM
// instead of SystemC. Touches no SystemC and no global mutable state: safe on several threads.
// Throws the same InputErrors as simulate_network.
NetworkResult estimate_network(const SystolicConfig& config, const Network& network,
                               const EnergyTable& energy, bool scalesim_compat = false);

}  // namespace loom
