#include "validate/runner/cold_cache_timer.h"

#include <algorithm>

#include "validate/runner/cuda_check.h"

namespace loom::gpu_runner {

ColdCacheTimer::ColdCacheTimer(int64_t l2_bytes) {
  // A blocking stream (not cudaStreamNonBlocking): it also orders with the legacy default
  // stream, so nothing else the runtime does can overlap a timed launch.
  LOOM_CUDA(cudaStreamCreate(&stream_));
  try {
    LOOM_CUDA(cudaEventCreate(&start_));
    LOOM_CUDA(cudaEventCreate(&stop_));
    scratch_ = DeviceBuffer(static_cast<size_t>(std::max<int64_t>(2 * l2_bytes, int64_t{1} << 20)));
  } catch (...) {
    if (stop_) (void)cudaEventDestroy(stop_);
    if (start_) (void)cudaEventDestroy(start_);
    (void)cudaStreamDestroy(stream_);
    throw;
  }
}

ColdCacheTimer::~ColdCacheTimer() {
  (void)cudaEventDestroy(stop_);
  (void)cudaEventDestroy(start_);
  (void)cudaStreamDestroy(stream_);
}

std::vector<double> ColdCacheTimer::time(const Launch& launch, int warmups, int repeats) {
  for (int i = 0; i < warmups; ++i) launch(stream_);
  LOOM_CUDA(cudaStreamSynchronize(stream_));
  std::vector<double> times_us;
  times_us.reserve(static_cast<size_t>(std::max(repeats, 0)));
  for (int i = 0; i < repeats; ++i) {
    // A different byte each time, so no flush can be skipped as writing what is already there.
    LOOM_CUDA(cudaMemsetAsync(scratch_.data(), static_cast<int>(++flushes_ & 0xff), scratch_.bytes(), stream_));
    LOOM_CUDA(cudaEventRecord(start_, stream_));
    launch(stream_);
    LOOM_CUDA(cudaEventRecord(stop_, stream_));
    LOOM_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    LOOM_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    times_us.push_back(static_cast<double>(ms) * 1000.0);
  }
  return times_us;
}

}  // namespace loom::gpu_runner
