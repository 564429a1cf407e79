// The GPU the runner measures: how many the CUDA runtime sees, and everything the
// measurement file records about the chosen one (validate::DeviceInfo), plus the figures
// the sweep and the microbenchmark probes are sized from (validate::ProbeTarget).
#pragma once

#include <stdexcept>
#include <string>

#include "validate/measurements.h"
#include "validate/microbenchmarks.h"

namespace loom::gpu_runner {

// No usable CUDA device: none installed, none visible (CUDA_VISIBLE_DEVICES), or no
// driver that can run this runtime. The runner exits 3 with this message.
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The number of devices the runtime sees (>= 1); NoDeviceError otherwise.
int visible_device_count();

struct RunnerDevice {
  int index = 0;
  validate::DeviceInfo info;
  validate::ProbeTarget target;
  bool clock_overridden = false;  // sm_clock_mhz came from --sm-clock-mhz
};

// The device has no code for the runner's kernels: an architecture the runner was not
// compiled for (LOOM_CUDA_ARCHITECTURES), or a driver too old to compile their PTX.
class UnsupportedDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Queries device `index` (< visible_device_count()). sm_clock_mhz is the device's peak SM
// clock unless `sm_clock_override_mhz` > 0 (the clock it was locked at with nvidia-smi -lgc).
RunnerDevice query_device(int index, double sm_clock_override_mhz);

// Checks that every kernel compiled into the runner can run on the current device (which
// must be `device`): UnsupportedDeviceError otherwise, before any time is spent.
void check_kernels_run_on(const RunnerDevice& device);

// "13.0" from the runtime's 13000-style version numbers.
std::string cuda_version_text(int version);

}  // namespace loom::gpu_runner
