#include "validate/runner/device_buffer.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "validate/runner/cuda_check.h"

namespace loom::gpu_runner {

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  // cudaMalloc(0) may hand back nullptr; a one-byte allocation keeps every argument a
  // valid pointer.
  LOOM_CUDA(cudaMalloc(&data_, bytes > 0 ? bytes : 1));
}

DeviceBuffer::~DeviceBuffer() {
  // After a fatal CUDA error cudaFree fails too; a destructor can only ignore that.
  if (data_) (void)cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) (void)cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const std::vector<uint8_t>& host, cudaStream_t stream) {
  if (host.size() != bytes_)
    throw std::logic_error("upload of " + std::to_string(host.size()) + " bytes into a " + std::to_string(bytes_) +
                           "-byte device buffer");
  if (bytes_ == 0) return;
  LOOM_CUDA(cudaMemcpyAsync(data_, host.data(), bytes_, cudaMemcpyHostToDevice, stream));
  LOOM_CUDA(cudaStreamSynchronize(stream));
}

std::vector<uint8_t> DeviceBuffer::download(cudaStream_t stream) const {
  std::vector<uint8_t> host(bytes_);
  if (bytes_ == 0) return host;
  LOOM_CUDA(cudaMemcpyAsync(host.data(), data_, bytes_, cudaMemcpyDeviceToHost, stream));
  LOOM_CUDA(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace loom::gpu_runner
