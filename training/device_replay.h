// One device running a range of a step's kernels in order, fed by a host that launches
// them: the host spends `launch_seconds` of CPU time per launch (asynchronously, running
// ahead of the device), so the device idles only when its kernels are shorter than the
// launches (Amdahl: once GEMMs are fast, launch cost shows). With CUDA Graphs the host
// launches the whole step once. Blocking waits (tensor-parallel exchanges, all-reduce before
// the update) are inserted by the caller between kernels.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "training/kernel_pricing.h"
#include "training/train_estimate.h"

namespace loom {

struct HostLaunches {
  double launch_seconds = 0;  // per launch; 0 = launch overhead not modelled
  bool graphs = false;        // one launch of `graph_seconds` for the whole step
  double graph_seconds = 0;
};

class DeviceReplay {
 public:
  DeviceReplay(const TrainingStep& step, const std::vector<KernelPrice>& prices, HostLaunches host, int device,
               double start_seconds);

  // Runs kernels [first, last); returns the device time at the end.
  double run(size_t first, size_t last);
  // The device waits until `t` (blocking communication or a barrier); recorded as an event
  // on `lane` when `name` is not empty.
  void wait_until(double t, const std::string& lane, const std::string& name, const std::string& phase);
  void busy_for(double seconds, const std::string& lane, const std::string& name, const std::string& phase);

  double now() const { return device_time_; }
  double kernel_end(size_t i) const { return end_[i]; }
  double launch_exposed() const { return launch_exposed_; }
  double busy(StepPhase phase) const { return busy_by_phase_[static_cast<int>(phase)]; }
  double gemm_busy() const { return gemm_busy_; }
  double elementwise_busy() const { return elementwise_busy_; }
  double waited() const { return waited_; }  // time spent in wait_until / busy_for
  std::vector<TimelineEvent>& events() { return events_; }

 private:
  const TrainingStep& step_;
  const std::vector<KernelPrice>& prices_;
  HostLaunches host_;
  int device_;
  double device_time_, host_time_;
  bool graph_launched_ = false;
  double launch_exposed_ = 0, gemm_busy_ = 0, elementwise_busy_ = 0, waited_ = 0;
  double busy_by_phase_[3] = {0, 0, 0};
  std::vector<double> end_;
  std::vector<TimelineEvent> events_;
};

}  // namespace loom
