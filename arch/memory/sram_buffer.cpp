#include "arch/memory/sram_buffer.h"

namespace loom {

SramBuffer::SramBuffer(sc_core::sc_module_name name) : sc_core::sc_module(name) {}

void SramBuffer::configure(int slots, int64_t slot_bytes, int64_t words_per_cycle) {
  slots_ = slots;
  slot_bytes_ = slot_bytes;
  words_per_cycle_ = words_per_cycle;
}

int64_t SramBuffer::port_cycles(int64_t words) const {
  return words_per_cycle_ > 0 ? (words + words_per_cycle_ - 1) / words_per_cycle_ : 0;
}

}  // namespace loom
