// Global-memory latency probe, following addresses: one thread first builds a ring of
// `count` elements `stride` bytes apart in chain[], each holding the generic address of the
// next (the last points back to element 0), then follows it for `steps` dependent loads from
// element 0 with p = *p. The loaded value is the next address, so a step's dependent path is
// one `ld.global.u64` and nothing else, as in the published latency measurements (Jia et al.;
// the Accel-Sim tuner). The final element's index goes to out[0] so the chase cannot be
// optimised away. Building the ring costs the same for any `steps`, so timing two step counts
// and differencing leaves the latency of one dependent global load (an L1 hit, an L2 hit or a
// DRAM access, by footprint = count * stride).
// count >= 1; stride > 0, a multiple of 8; chain holds count * stride bytes.
// Launch: block (1), grid (1).
extern "C" __global__ void address_chase(unsigned long long* chain, unsigned* out, int count, int stride, int steps) {
  char* const base = reinterpret_cast<char*>(chain);
  char* element = base;
  for (int i = 1; i < count; ++i) {
    char* const next = element + stride;
    *reinterpret_cast<char**>(element) = next;
    element = next;
  }
  *reinterpret_cast<char**>(element) = base;
  // p = *p as inline PTX: a plain C++ load through the loaded pointer compiles to a generic
  // ld.u64, and this probe times the global path. The generic and global windows coincide,
  // so the generic addresses stored above are global addresses. volatile and "memory": the
  // loads read what the stores above wrote, and stay in the loop.
  unsigned long long p = reinterpret_cast<unsigned long long>(base);
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p) : : "memory");
  out[0] = static_cast<unsigned>(p - reinterpret_cast<unsigned long long>(base)) / static_cast<unsigned>(stride);
}
