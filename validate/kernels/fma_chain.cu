// FP32 FMA latency/throughput probe: each thread runs one dependent chain x = x * a + b of
// `steps` FMAs and writes x to out[global thread id]. x starts at the global thread id / 1024
// (exact in FP32), so every thread's result differs; a = 1 - 2^-10 < 1 and b = 0.001 keep x
// finite (it tends to b / (1 - a) = 1.024). a and b are constants so each FMA reads a single
// register: no register-bank conflict adds to the latency being measured. The loop is
// unrolled by 64 so its counter, compare and branch cost little per step even where they
// are not hidden behind the chain (loom runs the PTX as written, without ptxas's scheduling).
// With one warp the time per step is the FMA latency; with many warps per SM, the reciprocal
// FMA throughput. Launch: block (threads), grid (blocks), any shape.
extern "C" __global__ void fma_chain(float* out, int steps) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  const float a = 1.0f - 1.0f / 1024, b = 0.001f;
  float x = id * (1.0f / 1024);
#pragma unroll 64
  for (int i = 0; i < steps; ++i) x = x * a + b;
  out[id] = x;
}
