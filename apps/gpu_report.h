// What `loom gpu` prints and writes for one kernel launch on the SIMT model: cycles, time,
// IPC, achieved FLOP/s against the config's peak, stall reasons by share of sub-core
// cycles, cache hit rates, DRAM traffic, bank conflicts, tensor-core utilization, energy.
// Schema: docs/report-schema.md, section "gpu".
#pragma once

#include <map>
#include <string>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "sim/json_reader.h"

namespace loom {

struct GpuLaunchOutcome {
  std::string kernel;    // catalog name or the .ptx path
  std::string entry;
  std::string issue_order = "scheduled";  // "written": the PTX's own order
  std::string execution = "at_issue";     // or "run_ahead" (cta_run_ahead.h)
  simt::Dim3 grid, block;
  std::map<std::string, int64_t> sizes;  // catalog kernels only
  simt::GpuStats stats;
  Json energy;                 // price_gpu_energy(...).to_json()
  double energy_pj = 0;
  std::string verification;    // "passed ...", "FAILED ..." or "not checked ..."
  bool verified_ok = true;
};

// Derived figures, computed once for both the text and the JSON report.
struct GpuLaunchFigures {
  double seconds = 0;
  double ipc = 0;                 // warp instructions per cycle, whole GPU
  double flops_per_second = 0;
  double peak_flops = 0;          // the peak of the unit the kernel's FLOPs ran on
  double l1_hit_rate = 0, l2_hit_rate = 0;
  double dram_bytes_per_second = 0;
  double tensor_utilization = 0;  // busy tensor-core cycles / available
};
GpuLaunchFigures gpu_launch_figures(const GpuLaunchOutcome& run, const simt::GpuConfig& config);

Json gpu_launch_to_json(const GpuLaunchOutcome& run, const simt::GpuConfig& config);
std::string format_gpu_summary(const GpuLaunchOutcome& run, const simt::GpuConfig& config);

}  // namespace loom
