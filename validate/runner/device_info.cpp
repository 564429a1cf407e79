#include "validate/runner/device_info.h"

#include <cuda_runtime_api.h>

#include <string>
#include <utility>
#include <vector>

#include "validate/runner/cuda_check.h"
#include "validate/runner/kernel_table.h"

namespace loom::gpu_runner {

int visible_device_count() {
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess) {
    // cudaErrorNoDevice (no GPU, or CUDA_VISIBLE_DEVICES hides them all) and
    // cudaErrorInsufficientDriver (no NVIDIA driver, or one older than this runtime) are
    // the usual reasons; the runtime's own text says which.
    std::string hint;
    if (code == cudaErrorInsufficientDriver) {
      int runtime = 0;
      (void)cudaRuntimeGetVersion(&runtime);  // needs no driver
      hint = "; is an NVIDIA driver for CUDA " + cuda_version_text(runtime) + " or later installed?";
    }
    throw NoDeviceError(std::string(cudaGetErrorString(code)) + " (" + cudaGetErrorName(code) + hint + ")");
  }
  if (count < 1) throw NoDeviceError("the CUDA runtime reports 0 devices");
  return count;
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  LOOM_CUDA(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

RunnerDevice query_device(int index, double sm_clock_override_mhz) {
  RunnerDevice d;
  d.index = index;
  cudaDeviceProp prop{};
  LOOM_CUDA(cudaGetDeviceProperties(&prop, index));
  validate::DeviceInfo& info = d.info;
  info.name = prop.name;
  // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain. Both
  // clocks are the peak ones in kHz: the SM clock a latency in cycles is converted at
  // unless the clocks were locked lower (--sm-clock-mhz).
  info.compute_capability = std::to_string(attribute(cudaDevAttrComputeCapabilityMajor, index)) + "." +
                            std::to_string(attribute(cudaDevAttrComputeCapabilityMinor, index));
  info.sms = attribute(cudaDevAttrMultiProcessorCount, index);
  info.sm_clock_mhz = attribute(cudaDevAttrClockRate, index) / 1000.0;
  if (sm_clock_override_mhz > 0) {
    info.sm_clock_mhz = sm_clock_override_mhz;
    d.clock_overridden = true;
  }
  info.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, index) / 1000.0;
  info.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
  info.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  info.l2_bytes = attribute(cudaDevAttrL2CacheSize, index);
  info.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, index);
  info.shared_bytes_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, index);
  int driver = 0, runtime = 0;
  LOOM_CUDA(cudaDriverGetVersion(&driver));
  LOOM_CUDA(cudaRuntimeGetVersion(&runtime));
  info.driver_version = cuda_version_text(driver);
  info.runtime_version = cuda_version_text(runtime);

  d.target.sms = info.sms;
  d.target.max_threads_per_sm = info.max_threads_per_sm;
  d.target.l2_bytes = info.l2_bytes;
  return d;
}

void check_kernels_run_on(const RunnerDevice& device) {
  std::vector<std::pair<std::string, const void*>> kernels{{"empty_kernel", empty_kernel_function()}};
  for (const KernelEntry& e : kernel_table()) kernels.emplace_back(e.name, e.function);
  for (const auto& [name, function] : kernels) {
    cudaFuncAttributes attributes{};
    const cudaError_t code = cudaFuncGetAttributes(&attributes, function);
    if (code == cudaSuccess) continue;
    if (code == cudaErrorNoKernelImageForDevice || code == cudaErrorInvalidDeviceFunction ||
        code == cudaErrorUnsupportedPtxVersion || code == cudaErrorInvalidPtx) {
      (void)cudaGetLastError();
      throw UnsupportedDeviceError(
          name + ": " + cudaGetErrorString(code) + " (" + cudaGetErrorName(code) + "). " + device.info.name +
          " is compute capability " + device.info.compute_capability +
          "; this runner was compiled for CUDA architectures " + LOOM_CUDA_ARCHITECTURES_TEXT +
          ": rebuild with -DLOOM_CUDA_ARCHITECTURES=<its sm number>, with a CUDA Toolkit that supports it");
    }
    LOOM_CUDA(code);
  }
}

}  // namespace loom::gpu_runner
