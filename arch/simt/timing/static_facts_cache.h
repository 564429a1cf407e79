// Facts about a decoded instruction that the timing model derives from it and would
// otherwise recompute every time any warp reaches it: its register-read cycles and the
// scoreboard filter bits of its registers.
// Direct-mapped on the instruction's address (decoded instructions stay put for a launch);
// a collision just recomputes. Cleared per launch, since another kernel may reuse the memory.
#pragma once

#include <array>
#include <cstdint>

#include "arch/simt/timing/register_banks.h"
#include "arch/simt/timing/scoreboard.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

class StaticFactsCache {
 public:
  void reset(int banks, int ports) {
    banks_ = banks;
    ports_ = ports;
    entries_.fill(Entry{});
  }

  struct Facts {
    int read_cycles = 1;
    Scoreboard::RegisterMask registers{};
    bool wide_registers = false;
  };

  const Facts& of(const StaticInstruction& inst) {
    Entry& e = entries_[(reinterpret_cast<uintptr_t>(&inst) >> 4) & (kEntries - 1)];
    if (e.inst != &inst) {
      e.inst = &inst;
      // Warp MMAs are exempt from bank conflicts (register_banks.h).
      e.facts.read_cycles = inst.unit == Unit::tensor ? 1 : register_read_cycles(inst, banks_, ports_);
      e.facts.registers = Scoreboard::registers_of(inst);
      e.facts.wide_registers = Scoreboard::has_wide_registers(inst);
    }
    return e.facts;
  }

 private:
  static constexpr size_t kEntries = 4096;
  struct Entry {
    const StaticInstruction* inst = nullptr;
    Facts facts;
  };
  int banks_ = 1, ports_ = 1;
  std::array<Entry, kEntries> entries_{};
};

}  // namespace loom::simt
