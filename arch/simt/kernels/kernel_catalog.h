// The shipped CUDA kernels (validate/kernels/*.cu, committed as PTX) as launchable recipes:
// for a kernel name and its problem sizes, the grid, block, buffers (with deterministic
// initial contents) and scalar arguments, plus the work it does (FLOPs, compulsory bytes).
// `loom gpu --kernel NAME --size k=v,...`, the network runner and the tests all launch the
// kernels through these recipes, so a kernel's launch rule is written down once, next to
// the kernel's own header comment.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arch/simt/ptx/functional_state.h"  // Dim3

namespace loom::simt {

enum class ElementType { f32, f16, u32 };
int element_bytes(ElementType type);

// How a buffer starts: uniform random values in [-1, 1) from the launch seed, zeros, or a
// pointer-chasing chain next[i] = (i + stride) mod count (stride in elements).
enum class BufferInit { random, zeros, chain };

struct BufferSpec {
  std::string name;
  ElementType type = ElementType::f32;
  int64_t count = 0;
  BufferInit init = BufferInit::random;
  int64_t chain_stride = 1;  // BufferInit::chain
  bool output = false;       // checked against the CPU reference after the run
  int64_t bytes() const { return count * element_bytes(type); }
};

// One kernel argument: a buffer (by index into LaunchRecipe::buffers) or a scalar.
struct ArgumentSpec {
  enum class Kind { buffer, int32, f32, f64 } kind = Kind::int32;
  int buffer = -1;
  int64_t integer = 0;
  double real = 0;
};

struct LaunchRecipe {
  std::string kernel;       // catalog name, e.g. "wmma_gemm"
  std::string ptx_file;     // path relative to the source tree: validate/kernels/<kernel>.ptx
  std::string entry;        // the .entry name
  Dim3 grid, block;
  std::vector<BufferSpec> buffers;
  std::vector<ArgumentSpec> args;
  std::map<std::string, int64_t> sizes;  // every size parameter, defaults filled in
  double flops = 0;                      // useful floating-point operations
  int64_t compulsory_bytes = 0;          // bytes each buffer must cross DRAM at least once
};

struct KernelInfo {
  std::string name;
  std::string summary;
  std::vector<std::pair<std::string, int64_t>> size_defaults;  // in the kernel's order
};
const std::vector<KernelInfo>& kernel_catalog();
bool is_catalog_kernel(const std::string& name);

// Builds the recipe. `sizes` may name any of the kernel's size parameters (others take
// their defaults); unknown names, non-positive sizes and sizes the kernel cannot handle
// (e.g. wmma_gemm dimensions that are not multiples of 16) raise InputError naming `option`.
LaunchRecipe make_launch_recipe(const std::string& kernel, const std::map<std::string, int64_t>& sizes,
                                const std::string& option = "--size");

// The recipe's sizes the kernel takes as parameters (defaults filled in), without those the
// recipe derives (a convolution's P and Q): what make_launch_recipe accepts back.
std::map<std::string, int64_t> size_parameters(const LaunchRecipe& recipe);

// "M=1024,N=1024,K=1024": sizes in the kernel's parameter order (any others after them,
// alphabetically), as --size takes them.
std::string format_size_list(const std::string& kernel, const std::map<std::string, int64_t>& sizes);

// Parses "M=256,N=128,K=64" (option value) into a size map; InputError on bad syntax.
std::map<std::string, int64_t> parse_size_list(const std::string& text, const std::string& option);

}  // namespace loom::simt
