// Error checking for every CUDA runtime and cuBLAS call the runner makes: a failed call
// throws CudaError naming the call, the source line and the runtime's own explanation, so
// the runner can stop cleanly (keeping the runs it already finished) instead of timing or
// verifying garbage after an error nobody looked at.
#pragma once

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace loom::gpu_runner {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }
  // Out of device memory is the one failure a run can survive: nothing else is damaged,
  // so the run is skipped. Every other error (an illegal address, a launch failure) may
  // leave the CUDA context unusable.
  bool out_of_memory() const { return code_ == cudaErrorMemoryAllocation; }

 private:
  cudaError_t code_;
};

// Throws CudaError when `code` is not cudaSuccess.
void check_cuda(cudaError_t code, const char* call, const char* file, int line);

}  // namespace loom::gpu_runner

#define LOOM_CUDA(call) ::loom::gpu_runner::check_cuda((call), #call, __FILE__, __LINE__)
