// One view of "this network on this architecture" for every architecture kind and
// fidelity: what sweeps compare, what rooflines plot and what the HTML report draws.
//   systolic:  analytic = closed-form folds and DRAM overlap (arch/systolic/systolic_analytic.h);
//              cycle    = the SystemC model (arch/systolic/systolic_simulator.h)
//   hierarchy: analytic = every layer mapped and priced by the cost model (mapper/); its
//              cycle fidelity is the same analytic model (there is no other)
//   gpu:       analytic = the roofline-style kernel model (arch/simt/gpu_analytic.h);
//              cycle    = the SIMT model running the shipped kernels
// Cycle fidelity uses SystemC, so it runs once per process at a time (sim/systemc_context.h);
// analytic fidelity touches no SystemC and is safe to call from several threads.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arch/architecture.h"
#include "arch/roofline.h"
#include "arch/simt/kernels/network_on_gpu.h"
#include "arch/systolic/systolic_result.h"
#include "mapper/network_mapper.h"
#include "sim/json_reader.h"
#include "workloads/network.h"

namespace loom {

enum class Fidelity { analytic, cycle };
const char* name_of(Fidelity f);

struct LayerEvaluation {
  std::string name;
  std::string kind;   // the layer's kind name; "network" for totals
  int64_t macs = 0;
  int64_t cycles = 0;
  double seconds = 0;
  double utilization = 0;  // MACs / (peak MACs per cycle x cycles)
  // Energy by component, in the architecture's component order (pJ).
  std::vector<std::pair<std::string, double>> energy_pj;
  // Bytes moved at each memory level (reads + writes), innermost first, "dram" last.
  std::vector<std::pair<std::string, double>> bytes;

  double flops() const { return 2.0 * static_cast<double>(macs); }
  double energy_total_pj() const;
  double bytes_at(const std::string& level) const;  // 0 when the level is absent
};

struct NetworkEvaluation {
  std::string arch_name, arch_kind, arch_file;  // arch_kind: "systolic", "hierarchy", "gpu"
  std::string workload_name, workload_file;
  Fidelity fidelity = Fidelity::analytic;
  double clock_hz = 0;
  int64_t peak_macs_per_cycle = 0;
  Roofs roofs;
  std::vector<LayerEvaluation> layers;

  LayerEvaluation totals() const;  // sums; utilization over the whole network
  double seconds() const;
  double energy_pj() const;
};

struct EvaluationOptions {
  std::string gpu_precision = "fp16";  // gpu: "fp16" (tensor cores) or "fp32"
  std::string dataflow;                // hierarchy: mapper dataflow ("" = the architecture's default)
  uint64_t seed = 1;                   // hierarchy: mapper search seed
};

// Throws InputError for layers the architecture cannot run (as `loom run` would).
NetworkEvaluation evaluate_network(const Architecture& arch, const Network& network, Fidelity fidelity,
                                   const EvaluationOptions& options);

// The same view of results already computed (`loom run` reuses its own simulation).
NetworkEvaluation systolic_evaluation(const NetworkResult& result, const SystolicConfig& config,
                                      const Network& network, Fidelity fidelity);
NetworkEvaluation hierarchy_evaluation(const std::vector<LayerMapping>& layers, const HierarchyConfig& arch,
                                       const Network& network);
NetworkEvaluation gpu_evaluation(const std::vector<simt::GpuLayerRun>& runs, const simt::GpuConfig& config,
                                 simt::GpuPrecision precision, const Network& network);

// The "summary" object of report.json (docs/report-schema.md, "Summary"): the same for
// every architecture kind, and all `loom report` needs to draw a run.
Json evaluation_to_json(const NetworkEvaluation& evaluation);

}  // namespace loom
