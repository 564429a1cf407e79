#include "validate/runner/launch_arguments.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace loom::gpu_runner {

std::string recipe_params(const simt::LaunchRecipe& recipe) {
  std::string params;
  for (const simt::ArgumentSpec& a : recipe.args) {
    switch (a.kind) {
      case simt::ArgumentSpec::Kind::buffer: params += 'p'; break;
      case simt::ArgumentSpec::Kind::int32: params += 'i'; break;
      case simt::ArgumentSpec::Kind::f32: params += 'f'; break;
      case simt::ArgumentSpec::Kind::f64: params += 'd'; break;
    }
  }
  return params;
}

const KernelEntry& kernel_for(const simt::LaunchRecipe& recipe) {
  const KernelEntry* entry = find_kernel_entry(recipe.kernel);
  if (!entry)
    throw std::logic_error("loom's catalog has the kernel " + recipe.kernel +
                           " but the runner does not (add it to validate/runner/kernel_table.cu)");
  const std::string passed = recipe_params(recipe);
  if (entry->params != passed)
    throw std::logic_error("the runner declares " + recipe.kernel + " with parameters \"" + entry->params +
                           "\" but loom's recipe passes \"" + passed +
                           "\" (p pointer, i int, f float, d double; validate/runner/kernel_table.cu and "
                           "arch/simt/kernels/kernel_catalog.cpp must agree)");
  return *entry;
}

LaunchArguments::LaunchArguments(const simt::LaunchRecipe& recipe, const std::vector<DeviceBuffer>& buffers)
    : slots_(recipe.args.size()) {
  for (size_t i = 0; i < recipe.args.size(); ++i) {
    const simt::ArgumentSpec& a = recipe.args[i];
    unsigned char* slot = slots_[i].bytes.data();
    switch (a.kind) {
      case simt::ArgumentSpec::Kind::buffer: {
        if (a.buffer < 0 || static_cast<size_t>(a.buffer) >= buffers.size())
          throw std::logic_error(recipe.kernel + ": argument " + std::to_string(i) + " names buffer " +
                                 std::to_string(a.buffer) + " of " + std::to_string(buffers.size()));
        void* pointer = buffers[static_cast<size_t>(a.buffer)].data();
        std::memcpy(slot, &pointer, sizeof pointer);
        break;
      }
      case simt::ArgumentSpec::Kind::int32: {
        // The catalog keeps every size below 2^31, so this is exact.
        const int32_t v = static_cast<int32_t>(a.integer);
        std::memcpy(slot, &v, sizeof v);
        break;
      }
      case simt::ArgumentSpec::Kind::f32: {
        const float v = static_cast<float>(a.real);
        std::memcpy(slot, &v, sizeof v);
        break;
      }
      case simt::ArgumentSpec::Kind::f64: {
        const double v = a.real;
        std::memcpy(slot, &v, sizeof v);
        break;
      }
    }
  }
  // Taken only once slots_ has its final size: the pointers must not move.
  for (Slot& s : slots_) pointers_.push_back(s.bytes.data());
}

}  // namespace loom::gpu_runner
