// Shared-memory latency probe: one thread builds a ring of `count` entries in shared memory,
// each holding the shared-window byte address of the entry `stride` further on (mod count),
// then follows it for `steps` dependent loads from entry 0. The chase is inline PTX
// `ld.shared.u32 p, [p]`: the loaded value is the next address, so a step's dependent path is
// the load alone (as in the published pointer chases, p = *p), with no index-to-address
// arithmetic. The final entry's index goes to out[0] so the chain cannot be optimised away.
// Building the ring costs the same for any `steps`, so timing two step counts and
// differencing leaves the latency of one dependent shared load.
// count <= 4096, 0 < stride < count. Launch: block (1), grid (1).
extern "C" __global__ void shared_chase(unsigned* out, int steps, int count, int stride) {
  __shared__ unsigned chain[4096];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(&chain[0]));
  // stride < count, so one conditional subtraction is the modulo (no integer division).
  for (int i = 0; i < count; ++i) {
    const int next = i + stride < count ? i + stride : i + stride - count;
    chain[i] = static_cast<unsigned>(__cvta_generic_to_shared(&chain[next]));
  }
  unsigned p = base;
  // volatile and "memory": the loads read the ring the stores above wrote, and stay in the loop.
  for (int i = 0; i < steps; ++i) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(p) : "r"(p) : "memory");
  out[0] = (p - base) / 4;
}
