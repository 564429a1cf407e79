// One device allocation (cudaMalloc / cudaFree), owned like a std::vector: moved, never
// copied, freed when it goes out of scope, so a run that fails half-way leaks nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

namespace loom::gpu_runner {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);  // CudaError (out_of_memory()) when it does not fit
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

  // Copies host bytes in (all of them: the sizes must match) / out, in stream order,
  // and waits for the copy: the host memory is pageable and may be freed right after.
  void upload(const std::vector<uint8_t>& host, cudaStream_t stream);
  std::vector<uint8_t> download(cudaStream_t stream) const;

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace loom::gpu_runner
