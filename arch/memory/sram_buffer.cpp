#include "arch/memory/sram_buffer.h"

namespace loom {

SramBuffer::SramBuffer(sc_core::sc_module_name name) : sc_core::sc_module(name) {}

void SramBuffer::configure(int64_t capacity_bytes, bool double_buffered, int64_t words_per_cycle) {
  capacity_bytes_ = capacity_bytes;
  double_buffered_ = double_buffered;
  words_per_cycle_ = words_per_cycle;
}

int64_t SramBuffer::port_cycles(int64_t words) const {
  return words_per_cycle_ > 0 ? (words + words_per_cycle_ - 1) / words_per_cycle_ : 0;
}

}  // namespace loom
