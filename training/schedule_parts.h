// Pieces the parallel schedules (training/parallel_schedules.cpp, pipeline_schedule.cpp)
// share: the host's launch model, phase boundaries, per-kernel rows, breakdowns, memory rows
// and timeline bookkeeping.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "training/device_replay.h"
#include "training/parallel_schedules.h"

namespace loom {

HostLaunches host_launches(const ScheduleContext& c);
size_t first_of_phase(const TrainingStep& step, StepPhase phase);  // first kernel of `phase` or later
std::vector<KernelTime> kernel_times(const TrainingStep& step, const std::vector<KernelPrice>& prices);
// Busy time by phase and kind, exposed launches, and the replay's waits as exposed communication.
void fill_breakdown(const DeviceReplay& replay, StepBreakdown& breakdown);
DeviceMemory device_memory(const SystemDevice& device, const MemoryFootprint& footprint);
void append_events(std::vector<TimelineEvent>& out, const std::vector<TimelineEvent>& events, int device);
std::string megabytes(int64_t bytes);  // "25.3 MB"
std::vector<int> all_devices(int count);  // 0 .. count-1: the collective group, in ring order
// Each layer's position in `network`, by name (kernels name their layer).
std::map<std::string, size_t> layer_positions(const Network& network);

// Data and tensor parallelism run one step per distinct architecture and copy it to every
// device of that architecture.
struct Replica {
  TrainingStep step;
  std::vector<KernelPrice> prices;
  std::unique_ptr<DeviceReplay> replay;
  size_t update_begin = 0;
  std::map<std::string, size_t> index;  // kernel name -> position (devices may differ in transposes)
};
using Replicas = std::map<const Architecture*, Replica>;

// The step, breakdown (of the slowest replica), kernels (device 0's), per-device memory and
// the timeline (each drawn device's replay plus `shared_events`, e.g. collectives).
void finish_replicated(const ScheduleContext& c, const Replicas& replicas, const DeviceReplay& slowest,
                       double step_seconds, const std::vector<TimelineEvent>& shared_events, TrainResult& result);

}  // namespace loom
