#include "sim/huge_page_arena.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#if defined(__unix__)
#include <pthread.h>
#endif

#include "sim/huge_page_buffer.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOOM_ARENA_USES_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LOOM_ARENA_USES_NEW 1
#endif

namespace loom {

namespace {

constexpr size_t kChunkBytes = size_t{32} << 20;  // faulted in as used (HugePageBuffer)
constexpr size_t kAlignment = kHugePageArenaAlignment;  // no two blocks share a host cache line

struct Arena;
Arena& arena();

struct Arena {
  std::mutex mutex;
  std::vector<HugePageBuffer> chunks;
  uint8_t* put = nullptr;
  uint8_t* end = nullptr;
  std::unordered_map<size_t, std::vector<void*>> free_by_size;
  size_t live = 0;
};

Arena* make_arena() {
  auto* a = new Arena;
#if defined(__unix__)
  // A process forked while another thread holds the lock (a sweep's workers) would inherit
  // it held forever: fork waits for the lock, as it does for malloc's.
  pthread_atfork([] { arena().mutex.lock(); }, [] { arena().mutex.unlock(); }, [] { arena().mutex.unlock(); });
#endif
  return a;
}

// Never destroyed: vectors in objects with static storage may free their blocks after
// this file's statics would have been.
Arena& arena() {
  static Arena* a = make_arena();
  return *a;
}

size_t rounded(size_t bytes) { return (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

void* huge_page_arena_allocate(size_t bytes) {
#ifdef LOOM_ARENA_USES_NEW
  // Aligned as the arena's blocks are: a CacheLine needs 32 bytes, more than plain new gives.
  return ::operator new(bytes, std::align_val_t{kAlignment});
#else
  const size_t size = rounded(bytes);
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mutex);
  a.live += size;
  auto found = a.free_by_size.find(size);
  if (found != a.free_by_size.end() && !found->second.empty()) {
    void* p = found->second.back();
    found->second.pop_back();
    return p;
  }
  if (static_cast<size_t>(a.end - a.put) < size) {
    const size_t chunk = std::max(kChunkBytes, size);
    a.chunks.emplace_back(chunk);  // 2 MiB-aligned (HugePageBuffer), so 64-byte aligned
    a.put = static_cast<uint8_t*>(a.chunks.back().data());
    a.end = a.put + chunk;
  }
  void* p = a.put;
  a.put += size;
  return p;
#endif
}

void huge_page_arena_free(void* p, size_t bytes) noexcept {
#ifdef LOOM_ARENA_USES_NEW
  (void)bytes;
  ::operator delete(p, std::align_val_t{kAlignment});
#else
  if (!p) return;
  const size_t size = rounded(bytes);
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mutex);
  a.live -= size;
  if (a.live == 0) {  // nothing allocated: start over in the first chunk (its pages stay)
    a.free_by_size.clear();
    a.chunks.resize(1);
    a.put = static_cast<uint8_t*>(a.chunks.front().data());
    a.end = a.put + a.chunks.front().size();
    return;
  }
  try {
    a.free_by_size[size].push_back(p);
  } catch (...) {
    // Out of host memory for the list: the block is lost to reuse until the arena empties.
  }
#endif
}

bool huge_page_arena_enabled() {
#ifdef LOOM_ARENA_USES_NEW
  return false;
#else
  return true;
#endif
}

HugePageArenaUse huge_page_arena_use() {
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mutex);
  size_t reserved = 0;
  for (const HugePageBuffer& c : a.chunks) reserved += c.size();
  return {a.live, reserved};
}

}  // namespace loom
