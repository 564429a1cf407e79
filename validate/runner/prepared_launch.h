// One launch of a shipped kernel exactly as loom simulates it: the recipe's buffers on the
// device with the recipe's initial contents (kernel_reference.h: initial_buffers, same seed
// as `loom gpu`), its grid, block and arguments, ready to launch any number of times.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/kernel_reference.h"
#include "validate/runner/device_buffer.h"
#include "validate/runner/launch_arguments.h"
#include "validate/runner/kernel_table.h"

namespace loom::gpu_runner {

// Device memory the recipe's buffers take.
int64_t recipe_device_bytes(const simt::LaunchRecipe& recipe);

class PreparedLaunch {
 public:
  // Allocates and fills the buffers; `recipe` must outlive this object. Throws CudaError (out_of_memory() when they do not
  // fit) or std::logic_error when the runner's kernel does not match the recipe.
  PreparedLaunch(const simt::LaunchRecipe& recipe, uint64_t seed, cudaStream_t stream);

  // Enqueues one launch on `stream` (does not wait); CudaError when it cannot be launched.
  void launch(cudaStream_t stream);

  // Puts the initial contents back into the output buffers, so the next launch starts from
  // the state the CPU reference assumes.
  void restore_outputs(cudaStream_t stream);

  // Every buffer's contents now (waits for the stream), in recipe order.
  std::vector<simt::HostBuffer> read_back(cudaStream_t stream) const;

  const std::vector<simt::HostBuffer>& initial() const { return initial_; }
  std::vector<simt::HostBuffer> take_initial() { return std::move(initial_); }

 private:
  const simt::LaunchRecipe& recipe_;
  const KernelEntry& kernel_;
  std::vector<simt::HostBuffer> initial_;
  std::vector<DeviceBuffer> buffers_;
  LaunchArguments arguments_;

  static std::vector<DeviceBuffer> allocate(const simt::LaunchRecipe& recipe);
};

}  // namespace loom::gpu_runner
