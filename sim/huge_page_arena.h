// Huge-page storage for the simulator's many small arrays that are touched at random every
// cycle: the SIMT model's cache tag arrays (an L1 per SM, the L2's slices) are tens of
// kilobytes each and megabytes together, and as ordinary heap blocks they sit on 4 KiB
// pages, so most lookups also miss the host's TLB. Blocks of a HugePageVector come from
// one process-wide arena of HugePageBuffer chunks instead (Linux backs them with 2 MiB
// pages where transparent huge pages are enabled for them).
//
// The arena keeps freed blocks on lists by size and hands them out again for the same
// size (a model reconfigured for the same GPU gets the same blocks), and starts over from
// its first chunk whenever nothing is allocated from it. It never gives memory back to the
// host: what it holds is bounded by the most it ever held at once. Thread-safe (a lock per
// allocation, which happens only when arrays are sized). Under AddressSanitizer blocks come
// from operator new, so that overruns are still caught.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace loom {

// Every block is aligned to this (a host cache line), with or without the arena.
inline constexpr size_t kHugePageArenaAlignment = 64;

void* huge_page_arena_allocate(size_t bytes);
void huge_page_arena_free(void* p, size_t bytes) noexcept;

// For tests: bytes allocated and not freed, and bytes of chunks held from the host.
struct HugePageArenaUse {
  size_t live_bytes = 0;
  size_t reserved_bytes = 0;
};
HugePageArenaUse huge_page_arena_use();
// False under AddressSanitizer, where blocks come from operator new and nothing is counted.
bool huge_page_arena_enabled();

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  static_assert(alignof(T) <= kHugePageArenaAlignment, "the arena aligns blocks to a host cache line only");
  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(huge_page_arena_allocate(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { huge_page_arena_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;  // one arena: any allocator frees any other's blocks
  }
};

template <class T>
using HugePageVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace loom
