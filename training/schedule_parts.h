// Pieces the parallel schedules (training/parallel_schedules.cpp, pipeline_schedule.cpp)
// share: the host's launch model, phase boundaries, per-kernel rows, breakdowns, memory rows
// and timeline bookkeeping.
#pragma once

#include <string>
#include <vector>

#include "training/device_replay.h"
#include "training/parallel_schedules.h"

namespace loom {

// Timelines of more devices than this show only the first ones (identical devices have
// identical compute bars; the report says how many are drawn).
inline constexpr int kTimelineDevices = 16;

HostLaunches host_launches(const ScheduleContext& c);
size_t first_of_phase(const TrainingStep& step, StepPhase phase);  // first kernel of `phase` or later
std::vector<KernelTime> kernel_times(const TrainingStep& step, const std::vector<KernelPrice>& prices);
// Busy time by phase and kind, exposed launches, and the replay's waits as exposed communication.
void fill_breakdown(const DeviceReplay& replay, StepBreakdown& breakdown);
DeviceMemory device_memory(const SystemDevice& device, const MemoryFootprint& footprint);
void append_events(std::vector<TimelineEvent>& out, const std::vector<TimelineEvent>& events, int device);
std::string megabytes(int64_t bytes);  // "25.3 MB"
std::vector<int> all_devices(int count);  // 0 .. count-1: the collective group, in ring order

}  // namespace loom
