// A recipe's kernel arguments (arch/simt/kernels/kernel_catalog.h: buffers by index, 32-bit
// integers, floats, doubles) packed the way cudaLaunchKernel takes them: one pointer per
// parameter, each to a value of exactly the parameter's size.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "arch/simt/kernels/kernel_catalog.h"
#include "validate/runner/device_buffer.h"
#include "validate/runner/kernel_table.h"

namespace loom::gpu_runner {

// The recipe's arguments as parameter letters (kernel_table.h): "pppiii" for a GEMM.
std::string recipe_params(const simt::LaunchRecipe& recipe);

// The runner's kernel for the recipe; std::logic_error when the runner does not have it or
// when its declaration takes other parameters than the recipe passes (loom and the runner
// out of step: a bug, found before any GPU time is spent).
const KernelEntry& kernel_for(const simt::LaunchRecipe& recipe);

class LaunchArguments {
 public:
  // `buffers`: the recipe's device buffers, in recipe order. Only their addresses are
  // copied, so they must stay allocated while launches use these arguments.
  LaunchArguments(const simt::LaunchRecipe& recipe, const std::vector<DeviceBuffer>& buffers);
  LaunchArguments(const LaunchArguments&) = delete;  // pointers_ point into slots_
  LaunchArguments& operator=(const LaunchArguments&) = delete;

  void** data() { return pointers_.data(); }

 private:
  struct Slot {
    alignas(8) std::array<unsigned char, 8> bytes{};
  };
  std::vector<Slot> slots_;
  std::vector<void*> pointers_;
};

}  // namespace loom::gpu_runner
