// Kernel arguments as the user gives them (device pointers, integers, floats) and their
// binding into the bytes of the kernel's .param space, laid out as its .param declarations
// say (each parameter at its alignment, little-endian).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

struct KernelArgument {
  enum class Kind : uint8_t { pointer, signed_integer, unsigned_integer, f32, f64 };
  Kind kind = Kind::signed_integer;
  uint64_t bits = 0;  // pointer / integer value (two's complement), or the float's bit pattern

  static KernelArgument pointer(uint64_t device_address);
  static KernelArgument integer(int64_t value);
  static KernelArgument unsigned_integer(uint64_t value);
  static KernelArgument f32(float value);
  static KernelArgument f64(double value);
  std::string describe() const;  // "pointer 0x1000000000", "integer -3", "f32 1.5"
};

// The kernel's parameter bytes. InputError (naming the kernel and its signature) when the
// count differs or an argument does not fit its parameter: a pointer or float for an integer
// parameter, an integer for a float one, a value out of the parameter's range.
std::vector<uint8_t> bind_kernel_arguments(const PtxKernel& kernel, const std::vector<KernelArgument>& args);

// "(u64, u64, u64, u32, u32, u32)"
std::string kernel_signature(const PtxKernel& kernel);

}  // namespace loom::simt
