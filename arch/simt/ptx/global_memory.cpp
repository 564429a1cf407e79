#include "arch/simt/ptx/global_memory.h"

#include <algorithm>
#include <cstdio>

#include "arch/simt/ptx/address_windows.h"
#include "sim/error.h"

namespace loom::simt {

namespace {
std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace

uint64_t GlobalMemory::allocate(uint64_t bytes, const std::string& name) {
  if (next_address_ == 0) next_address_ = kGlobalBase;
  const uint64_t address = next_address_;
  const uint64_t span = (std::max<uint64_t>(bytes, 1) + kGapBytes + kAlignment - 1) / kAlignment * kAlignment;
  if (bytes > kGlobalLimit - kGlobalBase || address + span > kGlobalLimit)
    throw InputError("", "device memory", "allocating " + std::to_string(bytes) + " bytes for '" + name +
                                             "' exceeds loom's device address space; expected smaller buffers");
  Allocation a;
  a.address = address;
  a.bytes = bytes;
  a.name = name;
  a.data = HugePageBuffer(std::max<uint64_t>(bytes, 1));  // zero-filled
  allocations_.push_back(std::move(a));
  next_address_ = address + span;
  return address;
}

const GlobalMemory::Allocation* GlobalMemory::find(uint64_t address) const { return find_range(address, 1); }

const GlobalMemory::Allocation* GlobalMemory::find_range(uint64_t address, uint64_t bytes) const {
  auto it = std::upper_bound(allocations_.begin(), allocations_.end(), address,
                             [](uint64_t a, const Allocation& alloc) { return a < alloc.address; });
  if (it == allocations_.begin()) return nullptr;
  --it;
  const uint64_t rel = address - it->address;
  if (rel < it->bytes && bytes <= it->bytes - rel) return &*it;
  return nullptr;
}

uint8_t* GlobalMemory::translate_slow(uint64_t address, uint64_t bytes) {
  const Allocation* a = find_range(address, bytes);
  if (!a) return nullptr;
  cached_address_ = a->address;
  cached_bytes_ = a->bytes;
  cached_data_ = a->host();
  return cached_data_ + (address - a->address);
}

std::string GlobalMemory::describe(uint64_t address) const {
  auto it = std::upper_bound(allocations_.begin(), allocations_.end(), address,
                             [](uint64_t a, const Allocation& alloc) { return a < alloc.address; });
  std::string where;
  if (it != allocations_.begin()) {
    const Allocation& a = *std::prev(it);
    const std::string range = hex(a.address) + ".." + hex(a.address + std::max<uint64_t>(a.bytes, 1) - 1);
    if (address - a.address < a.bytes)
      where = "inside '" + a.name + "' (" + range + ") but running past its end";
    else
      where = std::to_string(address - a.address - a.bytes) + " bytes past the end of '" + a.name + "' (" + range + ")";
  } else if (!allocations_.empty()) {
    where = "below the first allocation '" + allocations_.front().name + "' at " + hex(allocations_.front().address);
  } else {
    where = "no device memory is allocated";
  }
  return hex(address) + " (" + where + ")";
}

void GlobalMemory::write_bytes(uint64_t address, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  uint8_t* p = translate(address, bytes);
  if (!p) throw InputError("", "device memory", "host write of " + std::to_string(bytes) + " bytes at " + describe(address));
  std::memcpy(p, src, bytes);
}

void GlobalMemory::read_bytes(uint64_t address, void* dst, uint64_t bytes) const {
  if (bytes == 0) return;
  const Allocation* a = find_range(address, bytes);
  if (!a) throw InputError("", "device memory", "host read of " + std::to_string(bytes) + " bytes at " + describe(address));
  std::memcpy(dst, a->host() + (address - a->address), bytes);
}

}  // namespace loom::simt
