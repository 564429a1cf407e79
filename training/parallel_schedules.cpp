#include "training/parallel_schedules.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/error.h"
#include "training/device_replay.h"
#include "training/schedule_parts.h"

namespace loom {

KernelPricer& ScheduleContext::pricer(const SystemDevice& device) const {
  std::unique_ptr<KernelPricer>& p = pricers[device.arch.get()];
  if (!p) p = std::make_unique<KernelPricer>(device.arch, options.step.precision, options.fidelity);
  return *p;
}

StepOptions ScheduleContext::step_options(const Architecture& arch) const {
  StepOptions s = options.step;
  s.layout_transposes = options.layout == TensorLayout::nchw && uses_tensor_math(s.precision) && arch.is_gpu();
  return s;
}

double ScheduleContext::loader_samples_per_second() const {
  const double rate = options.loader_samples_per_second;
  return rate < 0 ? system.host.loader_samples_per_second : rate;
}

// ---- data parallel ----

void schedule_data_parallel(const ScheduleContext& c, TrainResult& result) {
  const int n = static_cast<int>(c.system.devices.size());
  if (c.options.batch % n != 0) {
    throw InputError("", "--batch",
                     "a batch divisible by the " + std::to_string(n) + " devices for data parallelism (" +
                         std::to_string(c.options.batch) + " is not a multiple of " + std::to_string(n) + ")");
  }
  const int64_t per_device = c.options.batch / n;
  result.per_device_batch = per_device;

  // One step and one replay of forward and backward per distinct architecture.
  std::map<const Architecture*, Replica> replicas;
  for (const SystemDevice& d : c.system.devices) {
    Replica& r = replicas[d.arch.get()];
    if (r.replay) continue;
    r.step = derive_training_step(c.network, per_device, c.step_options(*d.arch));
    r.prices = c.pricer(d).price(r.step);
    r.replay = std::make_unique<DeviceReplay>(r.step, r.prices, host_launches(c), 0, 0.0);
    r.update_begin = first_of_phase(r.step, StepPhase::update);
    for (size_t i = 0; i < r.step.kernels.size(); ++i) r.index[r.step.kernels[i].name] = i;
    r.replay->run(0, r.update_begin);
  }

  // Buckets: weight gradients in backward order; a bucket is ready when every replica has
  // produced its last gradient.
  struct Bucket {
    int64_t bytes = 0;
    double ready = 0;
  };
  std::vector<Bucket> buckets;
  const Replica& first = replicas.at(c.system.devices[0].arch.get());
  double backward_end = 0;
  for (const auto& [arch, r] : replicas) backward_end = std::max(backward_end, r.replay->now());
  Bucket open;
  for (size_t i = 0; i < first.update_begin; ++i) {
    const StepKernel& k = first.step.kernels[i];
    if (k.gradient_bytes == 0) continue;
    double ready = 0;
    for (const auto& [arch, r] : replicas) ready = std::max(ready, r.replay->kernel_end(r.index.at(k.name)));
    open.bytes += k.gradient_bytes;
    open.ready = ready;
    if (open.bytes >= c.options.bucket_bytes) {
      buckets.push_back(open);
      open = {};
    }
  }
  if (open.bytes > 0) buckets.push_back(open);

  const std::vector<int> group = all_devices(n);
  std::vector<TimelineEvent> comm_events;
  double comm_free = 0;
  for (size_t b = 0; b < buckets.size() && n > 1; ++b) {
    const CollectiveCost cost = all_reduce(c.interconnect, group, buckets[b].bytes, c.options.all_reduce);
    const double start = std::max(c.options.overlap ? buckets[b].ready : backward_end, comm_free);
    comm_free = start + cost.seconds;
    c.traffic.add_all_reduce(group, buckets[b].bytes, c.options.all_reduce, cost.seconds);
    result.communication_seconds += cost.seconds;
    // Ring and tree all-reduce both send about 2(N-1)/N of the data per device.
    result.communication_bytes += int64_t(std::llround(2.0 * (n - 1) / n * double(buckets[b].bytes)));
    comm_events.push_back({0, "comm", "bucket " + std::to_string(b) + " (" + megabytes(buckets[b].bytes) + ")",
                           "all_reduce", start, comm_free});
  }

  // The update waits for the last bucket.
  double step_end = 0;
  const DeviceReplay* slowest = nullptr;
  // In device order, so that ties between architectures resolve the same way every run.
  std::set<const Architecture*> updated;
  for (const SystemDevice& d : c.system.devices) {
    if (!updated.insert(d.arch.get()).second) continue;
    Replica& r = replicas.at(d.arch.get());
    r.replay->wait_until(comm_free, "comm", "wait for all-reduce", "all_reduce");
    r.replay->run(r.update_begin, r.step.kernels.size());
    if (!slowest || r.replay->now() > step_end) {
      step_end = r.replay->now();
      slowest = r.replay.get();
    }
  }
  finish_replicated(c, replicas, *slowest, step_end, comm_events, result);
}

// ---- tensor parallel ----

void schedule_tensor_parallel(const ScheduleContext& c, TrainResult& result) {
  const int n = static_cast<int>(c.system.devices.size());
  result.per_device_batch = c.options.batch;
  const Network split = split_output_channels(c.network, n);
  const std::map<std::string, size_t> positions = layer_positions(c.network);
  const std::vector<int> group = all_devices(n);
  const int64_t s = storage_bytes(c.options.step.precision);

  std::map<const Architecture*, Replica> replicas;
  double step_end = 0;
  const DeviceReplay* slowest = nullptr;
  for (const SystemDevice& d : c.system.devices) {
    Replica& r = replicas[d.arch.get()];
    if (r.replay) continue;
    r.step = derive_training_step(split, c.options.batch, c.step_options(*d.arch));
    r.prices = c.pricer(d).price(r.step);
    r.replay = std::make_unique<DeviceReplay>(r.step, r.prices, host_launches(c), 0, 0.0);
    // The exchange after each kernel: all-gather of a layer's outputs after its last forward
    // kernel, all-reduce of its input gradient after its dgrad.
    std::map<std::string, size_t> last_forward;
    for (size_t i = 0; i < r.step.kernels.size(); ++i) {
      const StepKernel& k = r.step.kernels[i];
      if (k.phase == StepPhase::forward && !k.layer.empty()) last_forward[k.layer] = i;
    }
    const bool count = slowest == nullptr;  // communication totals from the first replica
    for (size_t i = 0; i < r.step.kernels.size(); ++i) {
      r.replay->run(i, i + 1);
      const StepKernel& k = r.step.kernels[i];
      if (n == 1 || k.layer.empty()) continue;
      const auto position = positions.find(k.layer);
      LOOM_CHECK(position != positions.end(), "training", "kernel of an unknown layer");
      Layer full = c.network.layers[position->second];
      full.batch = c.options.batch;
      CollectiveCost cost;
      std::string phase;
      int64_t bytes = 0;
      if (last_forward.count(k.layer) && last_forward.at(k.layer) == i) {
        bytes = full.ofmap_elements() * s;
        cost = all_gather(c.interconnect, group, bytes);
        phase = "all_gather";
      } else if (k.op == "dgrad") {
        bytes = full.ifmap_elements() * s;
        cost = all_reduce(c.interconnect, group, bytes, c.options.all_reduce);
        phase = "all_reduce";
      } else {
        continue;
      }
      r.replay->busy_for(cost.seconds, "comm", k.layer + " " + phase, phase);
      if (count) {
        if (phase == "all_gather") {
          c.traffic.add_all_gather(group, bytes, cost.seconds);
        } else {
          c.traffic.add_all_reduce(group, bytes, c.options.all_reduce, cost.seconds);
        }
        result.communication_seconds += cost.seconds;
        result.communication_bytes += int64_t(std::llround((phase == "all_gather" ? 1.0 : 2.0) * (n - 1) / n * double(bytes)));
      }
    }
    if (!slowest || r.replay->now() > step_end) {
      step_end = r.replay->now();
      slowest = r.replay.get();
    }
  }
  finish_replicated(c, replicas, *slowest, step_end, {}, result);
}

}  // namespace loom
