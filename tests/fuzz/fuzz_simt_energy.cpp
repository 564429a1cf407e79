// libFuzzer target: fuzz_simt_energy (tests/fuzz/fuzz_entries.h; run with scripts/fuzz).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  loom::fuzz::fuzz_simt_energy({reinterpret_cast<const char*>(data), size});
  return 0;
}
