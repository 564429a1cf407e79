// Implicit-GEMM convolution, FP32, NCHW input, KCRS filters, NKPQ output, stride and padding.
// GEMM view: rows = N*P*Q output pixels, cols = K output channels, reduction = C*R*S; the input
// tile is gathered im2col-style straight from the NCHW tensor into shared memory (no im2col
// buffer). Launch: block (16,16), grid (ceil(K/16), ceil(N*P*Q/16)).
#define TILE 16
extern "C" __global__ void conv_implicit_gemm(const float* x, const float* w, float* y,
                                              int N, int C, int H, int W, int K, int R, int S,
                                              int P, int Q, int stride, int pad) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int m = blockIdx.y * TILE + ty;          // output pixel handled by this thread's row
  int k_out = blockIdx.x * TILE + tx;      // output channel handled by this thread's column
  int rows = N * P * Q, crs = C * R * S;
  // Decompose the pixel index of the A row this thread loads.
  int n = m / (P * Q), pq = m % (P * Q), p = pq / Q, q = pq % Q;
  float acc = 0.0f;
  for (int k0 = 0; k0 < crs; k0 += TILE) {
    int ka = k0 + tx;  // reduction index this thread gathers for A
    float a = 0.0f;
    if (m < rows && ka < crs) {
      int c = ka / (R * S), rs = ka % (R * S), r = rs / S, s = rs % S;
      int h = p * stride - pad + r, wi = q * stride - pad + s;
      if (h >= 0 && h < H && wi >= 0 && wi < W) a = x[((n * C + c) * H + h) * W + wi];
    }
    As[ty][tx] = a;
    int kb = k0 + ty;  // reduction index this thread loads for B
    int kb_out = blockIdx.x * TILE + tx;
    Bs[ty][tx] = (kb < crs && kb_out < K) ? w[kb_out * crs + kb] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (m < rows && k_out < K) y[((n * K + k_out) * P + p) * Q + q] = acc;
}
