// Kernel timing with cold caches. loom's model starts every launch with empty caches, so
// the runner flushes L2 before every timed launch: it writes a scratch buffer twice the
// size of L2 (cudaMemsetAsync), which evicts whatever the previous launch left there. (L1
// and shared memory do not keep data from one kernel to the next.) CUDA events recorded
// right before and after the launch, in the same stream, time the launch alone: the flush
// runs before the start event, and it takes tens of microseconds, longer than the host
// needs to queue the launch behind it, so the host's launch latency is not counted either.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

#include "validate/runner/device_buffer.h"

namespace loom::gpu_runner {

class ColdCacheTimer {
 public:
  // Creates the stream every launch of the run goes to, the events, and the scratch buffer
  // (2 x l2_bytes, at least 1 MiB). CudaError when any of them cannot be created.
  explicit ColdCacheTimer(int64_t l2_bytes);
  ~ColdCacheTimer();
  ColdCacheTimer(const ColdCacheTimer&) = delete;
  ColdCacheTimer& operator=(const ColdCacheTimer&) = delete;

  cudaStream_t stream() const { return stream_; }

  // Enqueues `launch` (which must put its work on the stream it is given and throw on
  // failure) `warmups` times and waits for them, then `repeats` times each after an L2
  // flush, timing each. Returns the times in microseconds. A kernel that faults surfaces
  // here as a CudaError.
  using Launch = std::function<void(cudaStream_t)>;
  std::vector<double> time(const Launch& launch, int warmups, int repeats);

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  DeviceBuffer scratch_;
  unsigned flushes_ = 0;
};

}  // namespace loom::gpu_runner
