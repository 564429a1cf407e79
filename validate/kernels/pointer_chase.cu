// Pointer chasing, the latency kernel: one thread follows next[] for `steps` dependent loads.
// next[] holds indices (a permutation with a fixed stride); the final index is written to out
// so the chain cannot be optimised away. Launch: block (1), grid (1).
extern "C" __global__ void pointer_chase(const unsigned* next, unsigned* out, int steps) {
  unsigned j = 0;
  for (int i = 0; i < steps; ++i) j = next[j];
  out[0] = j;
}
