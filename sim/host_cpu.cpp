#include "sim/host_cpu.h"

namespace loom {

// __builtin_cpu_init first: callers may run in static initializers, before libgcc's own.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool host_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
bool host_has_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma");
}
#else
bool host_has_avx2() { return false; }
bool host_has_fma() { return false; }
#endif

}  // namespace loom
