// Energy of a simulated layer: its counted events times the table's per-event energies.
// MACs are priced per useful MAC (idle PEs are taken as clock-gated); each buffer access
// at the buffer's working-bank size and word width; DRAM per byte of its technology.
#pragma once

#include "arch/systolic/systolic_config.h"
#include "arch/systolic/systolic_result.h"
#include "sim/energy_table.h"

namespace loom {

EnergyBreakdown price_layer(const LayerResult& counts, const SystolicConfig& config, const EnergyTable& table);

}  // namespace loom
