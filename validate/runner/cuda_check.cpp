#include "validate/runner/cuda_check.h"

#include <filesystem>

namespace loom::gpu_runner {

void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  // A failed allocation also sets the runtime's "last error"; clear it so the next
  // cudaGetLastError() after a kernel launch reports that launch, not this failure.
  if (code == cudaErrorMemoryAllocation) (void)cudaGetLastError();
  const std::string where = std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
  throw CudaError(code, std::string(call) + " failed at " + where + ": " + cudaGetErrorName(code) + " (" +
                            cudaGetErrorString(code) + ")");
}

}  // namespace loom::gpu_runner
