// Element-wise: y = max(a + b, 0), FP32. Launch: block (256), grid (ceil(n/256)).
extern "C" __global__ void relu_add(const float* a, const float* b, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(a[i] + b[i], 0.0f);
}
