// Naive SIMT GEMM: one thread per output element, FP32, row-major.
// C[M x N] = A[M x K] * B[K x N]. Launch: block (16,16), grid (ceil(N/16), ceil(M/16)).
extern "C" __global__ void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
