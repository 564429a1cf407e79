// Tensor-core GEMM with the WMMA API: FP16 inputs, FP32 accumulate, 16x16x16 fragments.
// C[M x N] (fp32, row-major) = A[M x K] (fp16, row-major) * B[K x N] (fp16, col-major).
// Each warp computes one 16x16 tile of C; a block of 128 threads holds 4 warps side by side in N.
// M, N, K must be multiples of 16. Launch: block (128), grid (ceil(N/64), M/16).
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void wmma_gemm(const half* A, const half* B, float* C, int M, int N, int K) {
  int warp_n = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int warp_m = blockIdx.y;
  if (warp_n * 16 >= N || warp_m * 16 >= M) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b_frag;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a_frag, A + warp_m * 16 * K + k, K);
    wmma::load_matrix_sync(b_frag, B + warp_n * 16 * K + k, K);
    wmma::mma_sync(acc, a_frag, b_frag, acc);
  }
  wmma::store_matrix_sync(C + warp_m * 16 * N + warp_n * 16, acc, N, wmma::mem_row_major);
}
