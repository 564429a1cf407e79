// An on-chip SRAM buffer as a SystemC module: capacity split into slots (two when
// double-buffered: the array works on one while DRAM fills the other) and a port of
// limited width. (Access counts are planned per fold; see LayerResult.) Fold f uses slot f % slots(); a slot
// can be refilled only after the fold that used it has released it.
#pragma once

#include <cstdint>

#include <systemc>

namespace loom {

class SramBuffer : public sc_core::sc_module {
 public:
  explicit SramBuffer(sc_core::sc_module_name name);

  // slots: 2 when double-buffered, else 1; slot_bytes: what one slot holds.
  // words_per_cycle == 0: the port is as wide as the array edge needs (never a limit).
  void configure(int slots, int64_t slot_bytes, int64_t words_per_cycle);

  int slots() const { return slots_; }
  int64_t slot_bytes() const { return slot_bytes_; }
  // Cycles the port needs to move `words` words (0 when unlimited).
  int64_t port_cycles(int64_t words) const;

 private:
  int slots_ = 2;
  int64_t slot_bytes_ = 0;
  int64_t words_per_cycle_ = 0;
};

}  // namespace loom
