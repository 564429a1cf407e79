#include "training/device_replay.h"

#include <algorithm>

namespace loom {

DeviceReplay::DeviceReplay(const TrainingStep& step, const std::vector<KernelPrice>& prices, HostLaunches host,
                           int device, double start_seconds)
    : step_(step), prices_(prices), host_(host), device_(device), device_time_(start_seconds),
      host_time_(start_seconds), end_(step.kernels.size(), start_seconds) {}

double DeviceReplay::run(size_t first, size_t last) {
  for (size_t i = first; i < last; ++i) {
    const StepKernel& k = step_.kernels[i];
    double ready = device_time_;
    if (host_.graphs) {
      if (!graph_launched_) host_time_ += host_.graph_seconds;
      graph_launched_ = true;
      ready = host_time_;
    } else if (k.launches > 0 && host_.launch_seconds > 0) {
      host_time_ += host_.launch_seconds * k.launches;
      ready = host_time_;
    }
    if (ready > device_time_) {
      events_.push_back({device_, "host", k.name, "launch", device_time_, ready});
      launch_exposed_ += ready - device_time_;
      device_time_ = ready;
    }
    const double seconds = prices_[i].seconds;
    events_.push_back({device_, "compute", k.name, name_of(k.phase), device_time_, device_time_ + seconds});
    device_time_ += seconds;
    end_[i] = device_time_;
    busy_by_phase_[static_cast<int>(k.phase)] += seconds;
    (k.is_gemm ? gemm_busy_ : elementwise_busy_) += seconds;
  }
  return device_time_;
}

void DeviceReplay::wait_until(double t, const std::string& lane, const std::string& name, const std::string& phase) {
  if (t <= device_time_) return;
  if (!name.empty()) events_.push_back({device_, lane, name, phase, device_time_, t});
  waited_ += t - device_time_;
  device_time_ = t;
  // The host runs ahead of the device: it has long issued what comes next.
}

void DeviceReplay::busy_for(double seconds, const std::string& lane, const std::string& name,
                            const std::string& phase) {
  wait_until(device_time_ + seconds, lane, name, phase);
}

}  // namespace loom
