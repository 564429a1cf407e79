#include "sim/host_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

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
// GCC's and clang's runtimes both check XCR0, not only CPUID, for the AVX-512 features.
bool host_has_avx512f() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}
bool host_has_avx512bw() { return host_has_avx512f() && __builtin_cpu_supports("avx512bw"); }
// From CPUID itself: clang's __builtin_cpu_supports does not know "f16c".
bool host_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}
#else
bool host_has_avx2() { return false; }
bool host_has_fma() { return false; }
bool host_has_f16c() { return false; }
bool host_has_avx512f() { return false; }
bool host_has_avx512bw() { return false; }
#endif

}  // namespace loom
