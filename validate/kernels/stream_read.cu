// Read-bandwidth probe: a grid-stride loop over x[0..n) repeated `passes` times; each thread
// sums what it reads, in index order, and writes the sum to out[global thread id]. The loads
// use __ldcg (ld.global.cg: cached in L2, not in L1), so once the first pass has brought x
// into L2, later passes measure L2 bandwidth, not L1. The main loop issues four independent
// loads before adding them, so a thread keeps four requests in flight (the adds keep the
// index order, so the sum is the same as a one-at-a-time loop's).
// Launch: block (256), grid (blocks), any grid.
extern "C" __global__ void stream_read(const float* x, float* out, int n, int passes) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = blockDim.x * gridDim.x;
  float sum = 0.0f;
  for (int p = 0; p < passes; ++p) {
    int i = id;
    for (; i < n - 3 * stride; i += 4 * stride) {
      const float v0 = __ldcg(&x[i]), v1 = __ldcg(&x[i + stride]);
      const float v2 = __ldcg(&x[i + 2 * stride]), v3 = __ldcg(&x[i + 3 * stride]);
      sum += v0;
      sum += v1;
      sum += v2;
      sum += v3;
    }
    for (; i < n; i += stride) sum += __ldcg(&x[i]);
  }
  out[id] = sum;
}
