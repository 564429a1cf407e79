#include "training/schedule_parts.h"

#include <cstdio>

namespace loom {


HostLaunches host_launches(const ScheduleContext& c) {
  HostLaunches h;
  if (c.options.launch_overhead) h.launch_seconds = c.system.host.launch_overhead_seconds;
  h.graphs = c.options.cuda_graphs;
  h.graph_seconds = c.options.launch_overhead ? c.system.host.graph_launch_seconds : 0;
  return h;
}

size_t first_of_phase(const TrainingStep& step, StepPhase phase) {
  for (size_t i = 0; i < step.kernels.size(); ++i) {
    if (static_cast<int>(step.kernels[i].phase) >= static_cast<int>(phase)) return i;
  }
  return step.kernels.size();
}

std::vector<KernelTime> kernel_times(const TrainingStep& step, const std::vector<KernelPrice>& prices) {
  std::vector<KernelTime> out;
  for (size_t i = 0; i < step.kernels.size(); ++i) {
    const StepKernel& k = step.kernels[i];
    out.push_back({k.name, k.layer, k.op, name_of(k.phase), k.is_gemm, prices[i].seconds, prices[i].flops,
                   prices[i].dram_bytes, k.launches, k.fusion_saved_bytes});
  }
  return out;
}

void fill_breakdown(const DeviceReplay& r, StepBreakdown& b) {
  b.forward = r.busy(StepPhase::forward);
  b.backward = r.busy(StepPhase::backward);
  b.update = r.busy(StepPhase::update);
  b.gemm = r.gemm_busy();
  b.elementwise = r.elementwise_busy();
  b.launch_exposed = r.launch_exposed();
  b.communication_exposed = r.waited();
}

DeviceMemory device_memory(const SystemDevice& d, const MemoryFootprint& f) {
  return {d.name, f, d.memory_bytes, d.memory_bytes == 0 || f.total() <= d.memory_bytes};
}

void append_events(std::vector<TimelineEvent>& out, const std::vector<TimelineEvent>& events, int device) {
  for (TimelineEvent e : events) {
    e.device = device;
    out.push_back(std::move(e));
  }
}

std::string megabytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / 1e6);
  return text;
}

std::vector<int> all_devices(int count) {
  std::vector<int> group(count);
  for (int i = 0; i < count; ++i) group[i] = i;
  return group;
}

std::map<std::string, size_t> layer_positions(const Network& network) {
  std::map<std::string, size_t> positions;
  for (size_t i = 0; i < network.layers.size(); ++i) positions.emplace(network.layers[i].name, i);
  return positions;
}

void finish_replicated(const ScheduleContext& c, const Replicas& replicas, const DeviceReplay& slowest,
                       double step_seconds, const std::vector<TimelineEvent>& shared_events, TrainResult& result) {
  result.step_seconds = step_seconds;
  fill_breakdown(slowest, result.breakdown);
  const Replica& first = replicas.at(c.system.devices[0].arch.get());
  result.kernels = kernel_times(first.step, first.prices);
  result.fusion_saved_bytes = first.step.fusion_saved_bytes();
  for (size_t i = 0; i < c.system.devices.size(); ++i) {
    const SystemDevice& d = c.system.devices[i];
    const Replica& r = replicas.at(d.arch.get());
    result.memory.push_back(device_memory(d, r.step.memory));
    if (static_cast<int>(i) < kTimelineDevices) {
      append_events(result.timeline, r.replay->events(), static_cast<int>(i));
      append_events(result.timeline, shared_events, static_cast<int>(i));
    }
  }
}

}  // namespace loom
