// The shipped kernels (validate/kernels/*.cu, compiled into the runner) by catalog name: the
// host-side handle cudaLaunchKernel takes, and the parameter list as the declaration has it,
// so every launch can be checked against loom's recipe (arch/simt/kernels/kernel_catalog.h)
// before it runs: a kernel and a recipe that disagree about an argument would otherwise
// read garbage without any error.
#pragma once

#include <string>
#include <vector>

namespace loom::gpu_runner {

struct KernelEntry {
  std::string name;
  const void* function = nullptr;
  // One letter per parameter: 'p' pointer, 'i' 32-bit integer, 'f' float, 'd' double.
  std::string params;
};

const std::vector<KernelEntry>& kernel_table();
const KernelEntry* find_kernel_entry(const std::string& name);  // nullptr when absent

// An empty kernel: what one launch costs with no work (launch_overhead_us).
const void* empty_kernel_function();

}  // namespace loom::gpu_runner
