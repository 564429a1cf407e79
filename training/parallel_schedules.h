// The three ways of spreading a training step over devices, each a schedule of the devices'
// kernel replays (training/device_replay.h) and the collectives between them
// (arch/system/collectives.h). Formulas and assumptions: docs/training.md, "Parallelism".
//   data:     every device runs the step on batch/N samples; weight gradients are
//             all-reduced in buckets as backward produces them (overlapped unless turned
//             off); the update waits for the last bucket.
//   tensor:   every layer's output channels are split N ways; after each layer's forward the
//             outputs are all-gathered, after each dgrad the input gradients all-reduced,
//             both blocking.
//   pipeline: layers are cut into N contiguous stages balanced by time; the batch runs as M
//             micro-batches in a GPipe schedule (all forwards, then all backwards, then the
//             update), activations and their gradients sent between neighbouring stages.
#pragma once

#include <map>
#include <memory>

#include "arch/system/collectives.h"
#include "training/kernel_pricing.h"
#include "training/link_traffic.h"
#include "training/train_estimate.h"

namespace loom {

// What the schedules share: the system, the network, the options and one pricer per
// distinct architecture (kept across the estimator's re-runs).
struct ScheduleContext {
  const SystemConfig& system;
  const Network& network;
  const TrainOptions& options;
  const Interconnect& interconnect;
  std::map<const Architecture*, std::unique_ptr<KernelPricer>>& pricers;
  LinkTraffic& traffic;  // what the collectives put on each link

  KernelPricer& pricer(const SystemDevice& device) const;
  StepOptions step_options(const Architecture& arch) const;  // the layout transposes this device needs
  double loader_samples_per_second() const;                  // per node; 0 = unlimited
};

// Each fills the result's timing fields: step, breakdown (without input_wait),
// communication, kernels (device 0), memory footprints, timeline, stages.
void schedule_data_parallel(const ScheduleContext& context, TrainResult& result);
void schedule_tensor_parallel(const ScheduleContext& context, TrainResult& result);
void schedule_pipeline_parallel(const ScheduleContext& context, TrainResult& result);

// Footprint of one device's share under `parallel` across all `devices` (no pricing; the
// pipeline cut balances memory), for the "fits when split?" check.
int64_t footprint_bytes(const Network& network, const TrainOptions& options, Parallelism parallel, int devices);

}  // namespace loom
