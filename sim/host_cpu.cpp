#include "sim/host_cpu.h"

namespace loom {

bool host_has_avx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();  // callers may run in static initializers, before libgcc's own
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

}  // namespace loom
