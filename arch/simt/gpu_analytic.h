// The analytic SIMT GPU model: a closed-form estimate of what the cycle model
// (arch/simt/timing/, run through run_network_on_gpu) would report for each layer of a
// network, in microseconds instead of seconds, for design-space sweeps over GPU parameters
// (SMs, tensor cores, clock, L2, DRAM bandwidth).
//
// Each layer gets the launch the cycle path runs (launch_for_layer). From the launch and the
// shipped kernel's known loop structure (validate/kernels/*.cu and their committed PTX) the
// model derives, without executing anything:
//   * instruction counts by energy class, flops, tensor MMAs and operations, shared
//     wavefronts, occupancy (compute_occupancy, as the cycle model's CTA scheduler): equal to
//     the cycle model's (conv_implicit_gemm: up to one sampled term at the padding border);
//   * memory traffic: L1 and L2 sector accesses and hits (sampled lane addresses, coalesced
//     as the timing model does), DRAM bytes (compulsory traffic plus re-reads of the weight-
//     like operand when the L2 cannot keep it);
//   * cycles: per k-step a mean-value analysis of the busiest SM's CTAs cycling through the
//     SM's busiest resource (issue, pipes, tensor cores, MIO queue, NoC), the L2 and the DRAM
//     and the step's latency; waves; floors at the DRAM, L2 and compute peaks.
// Stall reasons and register-bank conflicts are not estimated (left 0). Formulas, what is
// estimated coarsely and the measured errors against the cycle model are in
// docs/simt-model.md, section "Analytic model".
//
// No SystemC and no mutable state: estimates may run on several threads at once.
#pragma once

#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_energy.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/kernels/layer_kernels.h"
#include "workloads/network.h"

namespace loom::simt {

struct GpuLayerEstimate {
  const Layer* layer = nullptr;
  LayerLaunch launch;   // the same launch the cycle model would run
  GpuStats stats;       // estimated: cycles, ctas, resident_ctas_per_sm, occupancy_limiter, flops,
                        // warp/thread instructions (by class where you can), l1/l2 sector accesses
                        // and hits, dram read/write bytes, shared requests/wavefronts, tensor
                        // mma instructions, tensor_core_ops, tensor_busy_cycles
  GpuEnergy energy;     // price_gpu_energy of the estimated stats with the config's table
};

// Closed-form estimate of every layer, same layer-to-kernel rule as run_network_on_gpu.
// No SystemC, no global mutable state: safe on several threads. Same InputErrors as the
// cycle path for layers/launches the config cannot run.
std::vector<GpuLayerEstimate> estimate_network_on_gpu(const Network& network, const GpuConfig& config,
                                                      GpuPrecision precision);

// The estimate of one launch of a kernel the layer rule uses (wmma_gemm, tiled_gemm,
// conv_implicit_gemm); InputError for any other kernel, and for launches `config` cannot run
// (the cycle path's errors: check_launch, check_timing_config, unsupported tensor precision).
GpuStats estimate_launch(const LaunchRecipe& recipe, const GpuConfig& config);

}  // namespace loom::simt
