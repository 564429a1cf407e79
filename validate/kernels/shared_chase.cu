// Shared-memory latency probe: one thread builds chain[i] = (i + stride) mod count in shared
// memory, then follows it for `steps` dependent loads from index 0; the final index goes to
// out[0] so the chain cannot be optimised away. Building the chain costs the same for any
// `steps`, so timing two step counts and differencing leaves the latency of one dependent
// shared load (plus the index-to-address arithmetic between loads).
// count <= 4096, 0 < stride < count. Launch: block (1), grid (1).
extern "C" __global__ void shared_chase(unsigned* out, int steps, int count, int stride) {
  __shared__ unsigned chain[4096];
  // stride < count, so one conditional subtraction is the modulo (no integer division).
  for (int i = 0; i < count; ++i) chain[i] = i + stride < count ? i + stride : i + stride - count;
  unsigned j = 0;
  for (int i = 0; i < steps; ++i) j = chain[j];
  out[0] = j;
}
