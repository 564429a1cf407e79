// One layer's plan on a systolic array, shared by the cycle model (systolic_simulator) and
// the analytic model (systolic_analytic): the fold list with each fold's closed-form cost
// (fold_cost) and DRAM traffic (plan_dram_traffic), and the layer's timing-free counts
// (MACs, folds, ideal compute cycles, array-side and DRAM-side SRAM accesses). The model
// that times the folds fills cycles_total, cycles_stall, the DRAM bytes it moved, the peak
// bandwidth and the energy. Impossible layers throw InputError here, so both models reject
// exactly the same inputs with the same messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/systolic/dram_traffic.h"
#include "arch/systolic/fold_plan.h"
#include "arch/systolic/systolic_config.h"
#include "arch/systolic/systolic_result.h"
#include "workloads/network.h"

namespace loom {

// What the timing models need of one fold.
struct FoldJob {
  int64_t compute_cycles = 0;  // ideal cycles (fold_cost)
  SramAccesses sram;           // array-side words per buffer (port pressure)
  FoldTraffic dram;            // bytes to and from DRAM for this fold
};

struct PlannedLayer {
  LayerResult result;  // counts only: no cycles_total, stalls, DRAM bytes or energy yet
  std::vector<FoldJob> jobs;
  int64_t dram_read_bytes = 0, dram_write_bytes = 0;  // planned totals
};

// Limits that keep one run within memory, time and SystemC's time range (2^64 ps).
// Folds: both models hold every planned fold of a run at once, about 180 bytes each while a
// layer is planned (its fold, traffic and job records) and 90 after, and the cycle model
// plays 3 to 5 million folds per second; 10^7 folds peaks at 1.7 GB and takes 2 to 3 s
// (docs/reliability.md), 12x the largest shipped case (VGG-16 on the 12x14 Eyeriss array,
// 826,452 folds). Cycles: 10^15 keeps simulated time far from SystemC's end.
inline constexpr int64_t kMaxFoldsPerRun = 10'000'000;
inline constexpr double kMaxSimulatedCycles = 1e15;

// Throws InputError naming the workload file when the network's layers need more than
// kMaxFoldsPerRun folds in all on this array. Closed form (fold_count), so it runs before
// anything is planned.
void check_folds_bound(const Network& network, const SystolicConfig& config, const ArrayGeometry& geometry);

// Plans one layer. Throws InputError (naming `workload_file` or the architecture file) when
// the layer alone needs more than kMaxFoldsPerRun folds or one fold's tile cannot fit its buffer.
PlannedLayer plan_layer(const Layer& layer, const SystolicConfig& config, const ArrayGeometry& geometry,
                        const std::string& workload_file);

// An upper bound on the cycles a planned layer can take (compute, every SRAM access
// serialised, every DRAM byte and three latencies per fold).
double cycles_bound(const PlannedLayer& planned, const SystolicConfig& config);

// Throws InputError when a network's summed bound exceeds kMaxSimulatedCycles.
void check_cycles_bound(double bound, const SystolicConfig& config, const Network& network);

}  // namespace loom
