// Tensor-core latency probe: each warp runs `steps` dependent WMMA m16n16k16 MMAs
// (FP16 inputs, FP32 accumulate), c = a * b + c, and stores c (row-major, 16x16) to
// out + warp * 256, warp = global thread id / 32. Every element of a and b is 1/64, so each
// MMA adds 16 * 2^-12 = 1/256 to every element of c: all partial sums are multiples of 2^-12
// and stay exact in FP32 while steps < 2^20, whatever order the hardware adds in.
// Launch: block (threads, a multiple of 32), grid (blocks).
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void mma_chain(float* out, int steps) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(a, __float2half(1.0f / 64));
  wmma::fill_fragment(b, __float2half(1.0f / 64));
  wmma::fill_fragment(c, 0.0f);
  for (int i = 0; i < steps; ++i) wmma::mma_sync(c, a, b, c);
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  wmma::store_matrix_sync(out + warp * 256, c, 16, wmma::mem_row_major);
}
