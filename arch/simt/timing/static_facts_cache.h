// Facts about a decoded instruction that the timing model derives from it and would
// otherwise recompute every time any warp reaches it: for now its register-read cycles.
// Direct-mapped on the instruction's address (decoded instructions stay put for a launch);
// a collision just recomputes. Cleared per launch, since another kernel may reuse the memory.
#pragma once

#include <array>
#include <cstdint>

#include "arch/simt/timing/register_banks.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

class StaticFactsCache {
 public:
  void reset(int banks, int ports) {
    banks_ = banks;
    ports_ = ports;
    entries_.fill(Entry{});
  }

  int read_cycles(const StaticInstruction& inst) {
    // Warp MMAs are exempt from bank conflicts (register_banks.h).
    if (inst.unit == Unit::tensor) return 1;
    Entry& e = entries_[(reinterpret_cast<uintptr_t>(&inst) >> 4) & (kEntries - 1)];
    if (e.inst != &inst) e = Entry{&inst, register_read_cycles(inst, banks_, ports_)};
    return e.read_cycles;
  }

 private:
  static constexpr size_t kEntries = 4096;
  struct Entry {
    const StaticInstruction* inst = nullptr;
    int read_cycles = 1;
  };
  int banks_ = 1, ports_ = 1;
  std::array<Entry, kEntries> entries_{};
};

}  // namespace loom::simt
