#include "arch/simt/timing/register_banks.h"

#include <algorithm>
#include <array>

#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

int register_read_cycles(const StaticInstruction& inst, int banks, int ports) {
  if (inst.n_src <= 1) return 1;
  std::array<uint8_t, kMaxRegisterBanks> reads{};
  int busiest = 0;
  for (int i = 0; i < inst.n_src; ++i) {
    const uint16_t reg = inst.src[i];
    bool seen = false;
    for (int j = 0; j < i && !seen; ++j) seen = inst.src[j] == reg;
    if (seen) continue;
    busiest = std::max<int>(busiest, ++reads[reg % banks]);
  }
  return std::max(1, (busiest + ports - 1) / ports);
}

}  // namespace loom::simt
