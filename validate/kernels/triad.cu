// STREAM triad, the bandwidth kernel: a = b + s * c, FP32, grid-stride loop.
// Launch: block (256), any grid.
extern "C" __global__ void triad(float* a, const float* b, const float* c, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    a[i] = b[i] + s * c[i];
}
