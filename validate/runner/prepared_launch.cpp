#include "validate/runner/prepared_launch.h"

#include "validate/runner/cuda_check.h"

namespace loom::gpu_runner {

int64_t recipe_device_bytes(const simt::LaunchRecipe& recipe) {
  int64_t bytes = 0;
  for (const simt::BufferSpec& b : recipe.buffers) bytes += b.count * simt::element_bytes(b.type);
  return bytes;
}

std::vector<DeviceBuffer> PreparedLaunch::allocate(const simt::LaunchRecipe& recipe) {
  std::vector<DeviceBuffer> buffers;
  for (const simt::BufferSpec& b : recipe.buffers)
    buffers.emplace_back(static_cast<size_t>(b.count * simt::element_bytes(b.type)));
  return buffers;
}

// Members initialise in declaration order: the kernel is checked against the recipe first,
// so a mismatch costs neither host nor device memory.
PreparedLaunch::PreparedLaunch(const simt::LaunchRecipe& recipe, uint64_t seed, cudaStream_t stream)
    : recipe_(recipe),
      kernel_(kernel_for(recipe)),
      initial_(simt::initial_buffers(recipe, seed)),
      buffers_(allocate(recipe)),
      arguments_(recipe, buffers_) {
  for (size_t i = 0; i < buffers_.size(); ++i) buffers_[i].upload(initial_[i], stream);
}

void PreparedLaunch::launch(cudaStream_t stream) {
  const simt::Dim3 g = recipe_.grid, b = recipe_.block;
  // No dynamic shared memory: every shipped kernel declares its shared arrays statically.
  LOOM_CUDA(cudaLaunchKernel(kernel_.function, dim3(g.x, g.y, g.z), dim3(b.x, b.y, b.z), arguments_.data(), 0, stream));
}

void PreparedLaunch::restore_outputs(cudaStream_t stream) {
  for (size_t i = 0; i < buffers_.size(); ++i)
    if (recipe_.buffers[i].output) buffers_[i].upload(initial_[i], stream);
}

std::vector<simt::HostBuffer> PreparedLaunch::read_back(cudaStream_t stream) const {
  std::vector<simt::HostBuffer> after;
  for (const DeviceBuffer& b : buffers_) after.push_back(b.download(stream));
  return after;
}

}  // namespace loom::gpu_runner
