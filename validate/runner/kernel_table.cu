// Declarations of the shipped kernels, exactly as validate/kernels/*.cu define them. The
// kernels are extern "C", so the linker cannot catch a signature that drifted from its
// definition: keep these in step with the .cu files (the parameter letters derived from
// them are checked against loom's recipes before every launch).
#include "validate/runner/kernel_table.h"

#include <cuda_fp16.h>

#include <type_traits>

extern "C" {
__global__ void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K);
__global__ void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K);
__global__ void wmma_gemm(const half* A, const half* B, float* C, int M, int N, int K);
__global__ void relu_add(const float* a, const float* b, float* y, int n);
__global__ void triad(float* a, const float* b, const float* c, float s, int n);
__global__ void pointer_chase(const unsigned* next, unsigned* out, int steps);
__global__ void reduction(const float* x, float* partial, int n);
__global__ void conv_implicit_gemm(const float* x, const float* w, float* y, int N, int C, int H, int W, int K,
                                   int R, int S, int P, int Q, int stride, int pad);
__global__ void shared_chase(unsigned* out, int steps, int count, int stride);
__global__ void address_chase(unsigned long long* chain, unsigned* out, int count, int stride, int steps);
__global__ void fma_chain(float* out, int steps);
__global__ void mma_chain(float* out, int steps);
__global__ void stream_read(const float* x, float* out, int n, int passes);
}

namespace loom::gpu_runner {

namespace {

__global__ void empty_kernel() {}

template <typename T>
constexpr char param_letter() {
  if constexpr (std::is_pointer_v<T>) {
    return 'p';
  } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, unsigned>) {
    return 'i';
  } else if constexpr (std::is_same_v<T, float>) {
    return 'f';
  } else {
    static_assert(std::is_same_v<T, double>, "a kernel parameter type the runner cannot pass");
    return 'd';
  }
}

// The parameter letters come from the declaration's own type, so they cannot disagree
// with it; a parameter type without a letter does not compile.
template <typename... Params>
KernelEntry entry(const char* name, void (*kernel)(Params...)) {
  return KernelEntry{name, reinterpret_cast<const void*>(kernel), std::string{param_letter<Params>()...}};
}

}  // namespace

const std::vector<KernelEntry>& kernel_table() {
  static const std::vector<KernelEntry> table{
      entry("naive_gemm", naive_gemm),
      entry("tiled_gemm", tiled_gemm),
      entry("wmma_gemm", wmma_gemm),
      entry("relu_add", relu_add),
      entry("triad", triad),
      entry("pointer_chase", pointer_chase),
      entry("reduction", reduction),
      entry("conv_implicit_gemm", conv_implicit_gemm),
      entry("shared_chase", shared_chase),
      entry("address_chase", address_chase),
      entry("fma_chain", fma_chain),
      entry("mma_chain", mma_chain),
      entry("stream_read", stream_read),
  };
  return table;
}

const KernelEntry* find_kernel_entry(const std::string& name) {
  for (const KernelEntry& e : kernel_table())
    if (e.name == name) return &e;
  return nullptr;
}

const void* empty_kernel_function() { return reinterpret_cast<const void*>(empty_kernel); }

}  // namespace loom::gpu_runner
