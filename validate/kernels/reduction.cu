// Block sum reduction, FP32: each block reduces blockDim.x * 2 elements through a shared-memory
// tree and writes one partial sum per block. Launch: block (256), grid (ceil(n/512)).
extern "C" __global__ void reduction(const float* x, float* partial, int n) {
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + tid;
  float v = 0.0f;
  if (i < n) v = x[i];
  if (i + blockDim.x < n) v += x[i + blockDim.x];
  s[tid] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}
