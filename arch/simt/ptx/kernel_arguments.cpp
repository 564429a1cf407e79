#include "arch/simt/ptx/kernel_arguments.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "sim/error.h"

namespace loom::simt {

KernelArgument KernelArgument::pointer(uint64_t device_address) { return {Kind::pointer, device_address}; }
KernelArgument KernelArgument::integer(int64_t value) { return {Kind::signed_integer, static_cast<uint64_t>(value)}; }
KernelArgument KernelArgument::unsigned_integer(uint64_t value) { return {Kind::unsigned_integer, value}; }
KernelArgument KernelArgument::f32(float value) { return {Kind::f32, std::bit_cast<uint32_t>(value)}; }
KernelArgument KernelArgument::f64(double value) { return {Kind::f64, std::bit_cast<uint64_t>(value)}; }

std::string KernelArgument::describe() const {
  char buf[64];
  switch (kind) {
    case Kind::pointer: std::snprintf(buf, sizeof buf, "pointer 0x%llx", static_cast<unsigned long long>(bits)); break;
    case Kind::signed_integer: std::snprintf(buf, sizeof buf, "integer %lld", static_cast<long long>(bits)); break;
    case Kind::unsigned_integer: std::snprintf(buf, sizeof buf, "integer %llu", static_cast<unsigned long long>(bits)); break;
    case Kind::f32: std::snprintf(buf, sizeof buf, "f32 %.9g", std::bit_cast<float>(static_cast<uint32_t>(bits))); break;
    case Kind::f64: std::snprintf(buf, sizeof buf, "f64 %.17g", std::bit_cast<double>(bits)); break;
  }
  return buf;
}

std::string kernel_signature(const PtxKernel& kernel) {
  std::string s = "(";
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    if (i) s += ", ";
    s += ptx_type_name(kernel.params[i].type);
    if (kernel.params[i].is_array) {
      s += '[';
      s += std::to_string(kernel.params[i].bytes / static_cast<uint32_t>(std::max(1, type_bytes(kernel.params[i].type))));
      s += ']';
    }
  }
  return s + ")";
}

namespace {

bool fits(const KernelArgument& a, PtxType t) {
  const int bits = type_bits(t);
  const bool is_signed = a.kind == KernelArgument::Kind::signed_integer && static_cast<int64_t>(a.bits) < 0;
  if (bits >= 64) return true;
  const uint64_t v = a.bits;
  switch (type_class(t)) {
    case TypeClass::signed_int:
      return is_signed ? static_cast<int64_t>(v) >= -(int64_t{1} << (bits - 1))
                       : v <= (uint64_t{1} << (bits - 1)) - 1;
    case TypeClass::unsigned_int: return !is_signed && v <= (uint64_t{1} << bits) - 1;
    default:  // .b: any value representable in the width, signed or not
      return is_signed ? static_cast<int64_t>(v) >= -(int64_t{1} << (bits - 1)) : v <= (uint64_t{1} << bits) - 1;
  }
}

}  // namespace

std::vector<uint8_t> bind_kernel_arguments(const PtxKernel& kernel, const std::vector<KernelArgument>& args) {
  const std::string who = "kernel '" + kernel.name + "'";
  if (args.size() != kernel.params.size())
    throw InputError(kernel.source_name, "arguments",
                     who + " takes " + std::to_string(kernel.params.size()) + " parameters " + kernel_signature(kernel) +
                         ", " + std::to_string(args.size()) + " given");
  std::vector<uint8_t> bytes(kernel.param_bytes, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelParam& p = kernel.params[i];
    const KernelArgument& a = args[i];
    auto mismatch = [&](const std::string& expected) {
      throw InputError(kernel.source_name, "argument " + std::to_string(i + 1),
                       who + " parameter " + std::to_string(i + 1) + " ('" + p.name + "', ." + ptx_type_name(p.type) +
                           ") was given " + a.describe() + "; expected " + expected);
    };
    if (p.is_array) mismatch("nothing loom can pass: by-value struct or array parameters are not supported");
    uint64_t value = 0;
    const bool pointer_sized = type_bytes(p.type) == 8 && !is_float_type(p.type);
    switch (type_class(p.type)) {
      case TypeClass::float_point:
        if (p.type == PtxType::f32 && a.kind == KernelArgument::Kind::f32) value = a.bits;
        else if (p.type == PtxType::f32 && a.kind == KernelArgument::Kind::f64)
          value = std::bit_cast<uint32_t>(static_cast<float>(std::bit_cast<double>(a.bits)));
        else if (p.type == PtxType::f64 && a.kind == KernelArgument::Kind::f64) value = a.bits;
        else if (p.type == PtxType::f64 && a.kind == KernelArgument::Kind::f32)
          value = std::bit_cast<uint64_t>(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(a.bits))));
        else mismatch(std::string("a floating-point value (.") + ptx_type_name(p.type) + ")");
        break;
      case TypeClass::signed_int:
      case TypeClass::unsigned_int:
      case TypeClass::bits:
        if (a.kind == KernelArgument::Kind::f32 || a.kind == KernelArgument::Kind::f64)
          mismatch(pointer_sized ? "a device pointer or an integer" : "an integer");
        if (a.kind == KernelArgument::Kind::pointer && !pointer_sized)
          mismatch("an integer (a pointer needs a 64-bit parameter)");
        if (a.kind != KernelArgument::Kind::pointer && !fits(a, p.type))
          mismatch(std::string("an integer in the range of .") + ptx_type_name(p.type));
        value = a.bits;
        break;
      default:
        mismatch("a parameter type loom can bind");
    }
    std::memcpy(bytes.data() + p.offset, &value, p.bytes);
  }
  return bytes;
}

}  // namespace loom::simt
