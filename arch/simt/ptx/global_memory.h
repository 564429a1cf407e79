// Device (global) memory of one simulated GPU: named allocations at 256-byte-aligned
// addresses starting at kGlobalBase, with an unmapped gap after each, so an access that
// strays past an allocation is caught instead of landing in its neighbour. Lookups go
// through a one-entry cache of the last allocation hit (kernels stream through a few
// buffers), then a binary search.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sim/huge_page_buffer.h"

namespace loom::simt {

class GlobalMemory {
 public:
  struct Allocation {
    uint64_t address = 0;
    uint64_t bytes = 0;
    std::string name;
    HugePageBuffer data;
    uint8_t* host() const { return static_cast<uint8_t*>(data.data()); }
  };
  static constexpr uint64_t kAlignment = 256;
  static constexpr uint64_t kGapBytes = 4096;  // unmapped bytes after every allocation

  // Zero-filled; returns the device address. InputError when the address space is exhausted.
  uint64_t allocate(uint64_t bytes, const std::string& name);

  // Host pointer to [address, address + bytes) when it lies inside one allocation, else null.
  uint8_t* translate(uint64_t address, uint64_t bytes) {
    const uint64_t rel = address - cached_address_;
    if (rel < cached_bytes_ && bytes <= cached_bytes_ - rel) return cached_data_ + rel;
    return translate_slow(address, bytes);
  }

  // The allocation containing `address`, or null (for messages).
  const Allocation* find(uint64_t address) const;
  // "0x1000000100 (4 bytes past the end of 'C', 0x1000000000..0x10000000ff)" and the like.
  std::string describe(uint64_t address) const;
  const std::vector<Allocation>& allocations() const { return allocations_; }

  // Host access; InputError when the range is not inside one allocation.
  void write_bytes(uint64_t address, const void* src, uint64_t bytes);
  void read_bytes(uint64_t address, void* dst, uint64_t bytes) const;
  template <class T>
  void write(uint64_t address, const std::vector<T>& values) {
    write_bytes(address, values.data(), values.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> read(uint64_t address, size_t count) const {
    std::vector<T> values(count);
    read_bytes(address, values.data(), count * sizeof(T));
    return values;
  }
  // Allocates and fills in one step.
  template <class T>
  uint64_t upload(const std::vector<T>& values, const std::string& name) {
    const uint64_t address = allocate(values.size() * sizeof(T), name);
    write(address, values);
    return address;
  }

 private:
  uint8_t* translate_slow(uint64_t address, uint64_t bytes);
  const Allocation* find_range(uint64_t address, uint64_t bytes) const;

  std::vector<Allocation> allocations_;  // sorted by address (allocation order)
  uint64_t next_address_ = 0;
  uint64_t cached_address_ = 0, cached_bytes_ = 0;
  uint8_t* cached_data_ = nullptr;
};

}  // namespace loom::simt
