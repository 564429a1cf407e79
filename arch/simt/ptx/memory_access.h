// Address resolution for the memory handlers: from a state-space address to a host pointer,
// with the bounds check that turns a bad access into an InputError naming the thread, the
// address and the instruction. Fast paths are inline; the error path is out of line.
#pragma once

#include <cstring>

#include "arch/simt/ptx/address_windows.h"
#include "arch/simt/ptx/exec_context.h"

namespace loom::simt {

[[noreturn]] void memory_fault(const WarpContext& c, MemorySpace space, uint64_t address, uint32_t bytes, int lane);

inline uint8_t* global_at(const WarpContext& c, uint64_t address, uint32_t bytes, int lane) {
  uint8_t* p = c.launch->memory->translate(address, bytes);
  if (!p) [[unlikely]] memory_fault(c, MemorySpace::global, address, bytes, lane);
  return p;
}
inline uint8_t* shared_at(const WarpContext& c, uint64_t address, uint32_t bytes, int lane) {
  const uint64_t size = c.cta->shared.size();
  if (address > size || bytes > size - address) [[unlikely]] memory_fault(c, MemorySpace::shared, address, bytes, lane);
  return c.cta->shared.data() + address;
}
inline uint8_t* local_at(const WarpContext& c, uint64_t address, uint32_t bytes, int lane) {
  const uint64_t size = c.launch->kernel->local_bytes;
  if (address > size || bytes > size - address) [[unlikely]] memory_fault(c, MemorySpace::local, address, bytes, lane);
  return c.warp->local + size * static_cast<uint64_t>(lane) + address;
}
inline uint8_t* param_at(const WarpContext& c, uint64_t address, uint32_t bytes, int lane) {
  const uint64_t size = c.launch->params.size();
  if (address > size || bytes > size - address) [[unlikely]] memory_fault(c, MemorySpace::param, address, bytes, lane);
  return c.launch->params.data() + address;
}
inline uint8_t* const_at(const WarpContext& c, uint64_t address, uint32_t bytes, int lane) {
  const std::vector<uint8_t>& bank = c.launch->kernel->constant_bank;
  if (address > bank.size() || bytes > bank.size() - address) [[unlikely]]
    memory_fault(c, MemorySpace::constant, address, bytes, lane);
  return const_cast<uint8_t*>(bank.data()) + address;
}

// Host pointer to [address, address + bytes) when the whole range lies inside one global
// allocation (S global) or the CTA's shared memory (S shared); nullptr otherwise, without a
// fault: the whole-warp paths then fall back to lane-by-lane checks, which name the fault.
template <MemorySpace S>
inline uint8_t* range_at(const WarpContext& c, uint64_t address, uint64_t bytes) {
  static_assert(S == MemorySpace::global || S == MemorySpace::shared);
  if constexpr (S == MemorySpace::global) {
    return c.launch->memory->translate(address, bytes);
  } else {
    const uint64_t size = c.cta->shared.size();
    if (address > size || bytes > size - address) return nullptr;
    return c.cta->shared.data() + address;
  }
}

// Local memory is interleaved across a warp's lanes in 4-byte words, as the hardware lays
// it out, so that the timing model sees same-offset accesses of a warp coalesce.
inline uint64_t local_segment_address(const WarpContext& c, uint64_t offset, int lane) {
  const uint64_t per_warp = 32 * uint64_t{c.launch->kernel->local_bytes};
  const uint64_t warp = uint64_t(c.cta->slot) * c.launch->warps_per_cta + c.warp_index;
  return warp * per_warp + (offset / 4) * 128 + uint64_t(lane) * 4 + offset % 4;
}

// Resolves an access in state space S (MemorySpace::none = generic). `where` receives the
// address the timing model sees and `space` the space it resolved to.
template <MemorySpace S>
inline uint8_t* resolve(const WarpContext& c, uint64_t address, uint32_t bytes, int lane, uint64_t& where,
                        MemorySpace& space) {
  where = address;
  space = S;
  if constexpr (S == MemorySpace::global) return global_at(c, address, bytes, lane);
  else if constexpr (S == MemorySpace::shared) return shared_at(c, address, bytes, lane);
  else if constexpr (S == MemorySpace::param) return param_at(c, address, bytes, lane);
  else if constexpr (S == MemorySpace::constant) return const_at(c, address, bytes, lane);
  else if constexpr (S == MemorySpace::local) {
    where = local_segment_address(c, address, lane);
    return local_at(c, address, bytes, lane);
  } else {
    if (in_shared_window(address)) {
      space = MemorySpace::shared;
      where = address - kSharedWindow;
      return shared_at(c, where, bytes, lane);
    }
    if (in_local_window(address)) {
      space = MemorySpace::local;
      where = local_segment_address(c, address - kLocalWindow, lane);
      return local_at(c, address - kLocalWindow, bytes, lane);
    }
    space = MemorySpace::global;
    return global_at(c, address, bytes, lane);
  }
}

// One state space's memory, captured in locals for a whole lane loop: the handlers write
// bytes (which may alias anything), so values re-read from the context every lane would be
// reloaded from memory each time. at() is resolve() for lane `lane` of the warp.
template <MemorySpace S>
class SpaceWindow {
 public:
  explicit SpaceWindow(const WarpContext& c) : c_(c) {
    if constexpr (S == MemorySpace::shared) {
      base_ = c.cta->shared.data();
      size_ = c.cta->shared.size();
    } else if constexpr (S == MemorySpace::param) {
      base_ = c.launch->params.data();
      size_ = c.launch->params.size();
    } else if constexpr (S == MemorySpace::constant) {
      base_ = const_cast<uint8_t*>(c.launch->kernel->constant_bank.data());
      size_ = c.launch->kernel->constant_bank.size();
    } else if constexpr (S == MemorySpace::global) {
      memory_ = c.launch->memory;
    }
  }
  [[gnu::always_inline]] uint8_t* at(uint64_t address, uint32_t bytes, int lane, uint64_t& where, MemorySpace& space) {
    if constexpr (S == MemorySpace::shared || S == MemorySpace::param || S == MemorySpace::constant) {
      where = address;
      if (address > size_ || bytes > size_ - address) [[unlikely]] memory_fault(c_, S, address, bytes, lane);
      return base_ + address;
    } else if constexpr (S == MemorySpace::global) {
      where = address;
      const uint64_t rel = address - base_address_;
      if (rel < size_ && bytes <= size_ - rel) [[likely]] return base_ + rel;
      return switch_allocation(address, bytes, lane);
    } else {
      return resolve<S>(c_, address, bytes, lane, where, space);
    }
  }

 private:
  // Another allocation than the last lane's (or the first lane): look it up and remember it.
  [[gnu::noinline]] uint8_t* switch_allocation(uint64_t address, uint32_t bytes, int lane) {
    uint8_t* p = global_at(c_, address, bytes, lane);
    const GlobalMemory::Allocation* a = memory_->find(address);
    base_address_ = a->address;
    size_ = a->bytes;
    base_ = a->host();
    return p;
  }

  const WarpContext& c_;
  uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
  uint64_t base_address_ = 0;
  GlobalMemory* memory_ = nullptr;
};

template <int Bytes>
inline uint64_t read_le(const uint8_t* p) {
  if constexpr (Bytes == 1) return *p;
  else {
    std::conditional_t<Bytes == 2, uint16_t, std::conditional_t<Bytes == 4, uint32_t, uint64_t>> v;
    std::memcpy(&v, p, Bytes);
    return v;
  }
}
template <int Bytes>
inline void write_le(uint8_t* p, uint64_t v) {
  if constexpr (Bytes == 1) *p = static_cast<uint8_t>(v);
  else {
    std::conditional_t<Bytes == 2, uint16_t, std::conditional_t<Bytes == 4, uint32_t, uint64_t>> t =
        static_cast<decltype(t)>(v);
    std::memcpy(p, &t, Bytes);
  }
}

}  // namespace loom::simt
