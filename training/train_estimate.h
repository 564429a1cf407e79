// "How many samples/s would this network train at on these devices, linked like this?"
// The training estimator: derives the step (workloads/training_step.h), prices every kernel
// on each device with the fast models (mapper/network_evaluation.h, analytic fidelity) or
// the cycle models, replays the host's launch queue, the input pipeline, the parallel
// strategy's communication (arch/system/collectives.h) and schedule, and returns a per-step
// timeline with its breakdown. Formulas and what each switch models: docs/training.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/system/collectives.h"
#include "arch/system/system_config.h"
#include "mapper/network_evaluation.h"
#include "workloads/training_step.h"

namespace loom {

enum class Parallelism { data, tensor, pipeline };
const char* name_of(Parallelism p);

struct TrainOptions {
  StepOptions step;                    // precision, optimizer, fusion, loss scaling
  TensorLayout layout = TensorLayout::nhwc;
  int64_t batch = 0;                   // global batch (samples per step), required
  int devices = 0;                     // the system's first N devices; 0 = all
  Parallelism parallel = Parallelism::data;
  AllReduceAlgorithm all_reduce = AllReduceAlgorithm::ring;
  int64_t bucket_bytes = int64_t(25) << 20;  // data parallel: gradient bucket (PyTorch DDP default)
  bool overlap = true;                 // data parallel: all-reduce buckets during backward
  int micro_batches = 0;               // pipeline: 0 = 4 x stages (capped at the per-stage batch)
  bool launch_overhead = true;         // host CPU time per kernel launch
  bool cuda_graphs = false;            // one launch per step instead
  double loader_samples_per_second = -1;  // per node; < 0 = the system's host figure, 0 = unlimited
  Fidelity fidelity = Fidelity::analytic;
  bool scaling_baseline = true;        // also estimate 1 device for the scaling efficiency
  bool effects = true;                 // also estimate with each switch flipped (what it costs)
};

// Timelines keep the bars of the first this many devices only (identical devices have
// identical compute bars; the report says how many are kept).
inline constexpr int kTimelineDevices = 16;

// One bar of the per-step timeline (the HTML report's chart).
struct TimelineEvent {
  int device = 0;
  std::string lane;    // "compute", "comm", "host", "input"
  std::string name;    // kernel, bucket or micro-batch
  std::string phase;   // "forward", "backward", "update", "all_reduce", "all_gather", "p2p",
                       // "launch", "input_wait"
  double start_seconds = 0, end_seconds = 0;
};

// Seconds of the step by what the slowest device spent them on; sums to step_seconds.
struct StepBreakdown {
  double forward = 0, backward = 0, update = 0;  // device busy with kernels of each phase
  double gemm = 0, elementwise = 0;              // the same busy time split by kernel kind
  double communication_exposed = 0;  // waiting for collectives / sends not hidden by compute
  double launch_exposed = 0;         // device idle waiting for the host to launch
  double input_wait = 0;             // device idle waiting for the data loader
  double pipeline_bubble = 0;        // pipeline fill and drain
};

// Per kernel of one device's step (first device of each distinct architecture is enough;
// the report shows device 0's).
struct KernelTime {
  std::string name, layer, op, phase;
  bool is_gemm = false;
  double seconds = 0;
  double flops = 0;
  double dram_bytes = 0;
  int launches = 0;
  int64_t fusion_saved_bytes = 0;
};

struct DeviceMemory {
  std::string device;
  MemoryFootprint footprint;
  int64_t capacity_bytes = 0;  // 0 = unknown
  bool fits = true;
};

// What one switch costs: the step with it as chosen vs flipped.
struct EffectCost {
  std::string name;        // "launch_overhead", "cuda_graphs", "layout_nchw", "fusion",
                           // "input_pipeline", "overlap", "loss_scaling"
  std::string setting;     // as estimated: "on" / "off"
  double step_seconds = 0;          // as chosen
  double flipped_step_seconds = 0;  // with the switch flipped
};

// One system link's share of the step's communication.
struct LinkUse {
  std::string a, b;          // its endpoints
  int64_t bytes = 0;         // carried in one step, both directions
  double busy_seconds = 0;   // time collectives using it ran (overlapping ones add up)
};

struct TrainResult {
  std::string system_name, system_file, workload_name, workload_file;
  TrainOptions options;
  int devices = 0;
  int64_t per_device_batch = 0;      // data: batch / devices; tensor, pipeline: batch
  int stages = 1, micro_batches = 1; // pipeline
  double step_seconds = 0;
  double samples_per_second = 0;
  StepBreakdown breakdown;
  double communication_seconds = 0;  // total collective time (exposed or hidden)
  std::vector<LinkUse> links;        // per system link (devices in use), file order
  int64_t communication_bytes = 0;   // per device, sent
  double bubble_fraction = 0;        // pipeline: idle share of the stage-time grid
  double single_device_samples_per_second = 0;  // the baseline (0 when not estimated)
  double scaling_efficiency = 0;     // samples/s / (devices x baseline); 0 when not estimated
  int64_t fusion_saved_bytes = 0;    // per device per step
  std::vector<KernelTime> kernels;   // device 0
  std::vector<DeviceMemory> memory;  // per device
  bool fits = true;                  // every device's footprint fits (or capacity unknown)
  std::vector<std::string> warnings; // e.g. does not fit, and which split would
  std::vector<EffectCost> effects;
  std::vector<TimelineEvent> timeline;   // devices 0 .. kTimelineDevices-1
  std::vector<std::string> stage_layers;  // pipeline: "first..last" per stage
};

// InputError for: batch not divisible across devices (data) or into micro-batches
// (pipeline), more devices than the system has, more stages than layers, a model that fits
// no device even when split across all devices, and the device models' own errors.
TrainResult estimate_training(const SystemConfig& system, const Network& network, const TrainOptions& options);

// report.json's body (docs/training.md, "Report"): everything above, with units in names.
Json train_result_to_json(const TrainResult& result);

}  // namespace loom
