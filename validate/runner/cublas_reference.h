// cuBLAS GEMMs timed as the speed of light for the shipped GEMM kernels (not simulated):
// SGEMM in plain FP32 (CUBLAS_DEFAULT_MATH, so no TF32), and GemmEx with FP16 inputs and
// FP32 compute and output, which cuBLAS runs on the tensor cores. Square, M = N = K,
// column-major, random inputs in [-1, 1); timed with cold caches like every kernel.
#pragma once

#include <cstdint>
#include <string>

#include <cublas_v2.h>

#include "validate/measurements.h"
#include "validate/runner/cold_cache_timer.h"

namespace loom::gpu_runner {

enum class LibraryGemm { sgemm, hgemm_tensor_op };
const char* library_gemm_name(LibraryGemm kind);  // "cublas_sgemm", "cublas_hgemm_tensor_op"
int64_t library_gemm_bytes(LibraryGemm kind, int64_t n);  // device memory of A, B and C

class CublasReferences {
 public:
  // A cuBLAS handle whose calls go to `stream` (the timer's). std::runtime_error when cuBLAS
  // cannot be initialised.
  explicit CublasReferences(cudaStream_t stream);
  ~CublasReferences();
  CublasReferences(const CublasReferences&) = delete;
  CublasReferences& operator=(const CublasReferences&) = delete;

  // Times one n x n x n GEMM. CudaError (out_of_memory() when the matrices do not fit), or
  // std::runtime_error when cuBLAS fails.
  validate::LibraryReference time_gemm(LibraryGemm kind, int64_t n, ColdCacheTimer& timer, int warmups, int repeats,
                                       uint64_t seed);

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace loom::gpu_runner
