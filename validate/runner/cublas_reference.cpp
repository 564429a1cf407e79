#include "validate/runner/cublas_reference.h"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "arch/simt/ptx/half_float.h"
#include "validate/runner/cuda_check.h"
#include "validate/runner/device_buffer.h"

namespace loom::gpu_runner {

namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" +
                           cublasGetStatusString(status) + ")");
}
#define LOOM_CUBLAS(call) check_cublas((call), #call)

// Uniform values in [-1, 1) exactly representable in FP16 (11 significant bits), so both
// GEMMs multiply the same numbers.
std::vector<float> random_matrix(int64_t elements, uint64_t& state) {
  std::vector<float> m(static_cast<size_t>(elements));
  for (float& v : m) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;  // 64-bit LCG: enough for timing data
    v = static_cast<float>(static_cast<int64_t>(state >> 53) - 1024) / 1024.0f;
  }
  return m;
}

std::vector<uint8_t> as_bytes(const std::vector<float>& values, bool to_half) {
  std::vector<uint8_t> bytes(values.size() * (to_half ? 2 : 4));
  for (size_t i = 0; i < values.size(); ++i) {
    if (to_half) {
      const uint16_t h = simt::float_to_half(values[i]);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    } else {
      std::memcpy(bytes.data() + 4 * i, &values[i], 4);
    }
  }
  return bytes;
}

}  // namespace

const char* library_gemm_name(LibraryGemm kind) {
  return kind == LibraryGemm::sgemm ? "cublas_sgemm" : "cublas_hgemm_tensor_op";
}

int64_t library_gemm_bytes(LibraryGemm kind, int64_t n) {
  const int64_t input = kind == LibraryGemm::sgemm ? 4 : 2;
  return n * n * (2 * input + 4);
}

CublasReferences::CublasReferences(cudaStream_t stream) {
  LOOM_CUBLAS(cublasCreate(&handle_));
  try {
    LOOM_CUBLAS(cublasSetStream(handle_, stream));
    // Default math: FP32 SGEMM stays FP32 (TF32 only with CUBLAS_TF32_TENSOR_OP_MATH), while
    // FP16-input GemmEx may use the tensor cores.
    LOOM_CUBLAS(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
  } catch (...) {
    (void)cublasDestroy(handle_);
    throw;
  }
}

CublasReferences::~CublasReferences() { (void)cublasDestroy(handle_); }

validate::LibraryReference CublasReferences::time_gemm(LibraryGemm kind, int64_t n, ColdCacheTimer& timer,
                                                       int warmups, int repeats, uint64_t seed) {
  const bool half = kind == LibraryGemm::hgemm_tensor_op;
  uint64_t state = seed;
  DeviceBuffer a(static_cast<size_t>(n * n * (half ? 2 : 4))), b(a.bytes()), c(static_cast<size_t>(n * n * 4));
  a.upload(as_bytes(random_matrix(n * n, state), half), timer.stream());
  b.upload(as_bytes(random_matrix(n * n, state), half), timer.stream());
  LOOM_CUDA(cudaMemsetAsync(c.data(), 0, c.bytes(), timer.stream()));
  const int dim = static_cast<int>(n);
  const float alpha = 1.0f, beta = 0.0f;
  const ColdCacheTimer::Launch call = [&](cudaStream_t) {
    // The handle is bound to the timer's stream, the one `time` passes.
    if (half) {
      LOOM_CUBLAS(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &alpha, a.data(), CUDA_R_16F, dim,
                               b.data(), CUDA_R_16F, dim, &beta, c.data(), CUDA_R_32F, dim, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT));
    } else {
      LOOM_CUBLAS(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &alpha, static_cast<const float*>(a.data()),
                              dim, static_cast<const float*>(b.data()), dim, &beta, static_cast<float*>(c.data()), dim));
    }
  };
  validate::LibraryReference ref;
  ref.name = library_gemm_name(kind);
  ref.sizes = {{"M", n}, {"N", n}, {"K", n}};
  ref.time = validate::summarize_times(timer.time(call, warmups, repeats));
  ref.flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  return ref;
}

}  // namespace loom::gpu_runner
