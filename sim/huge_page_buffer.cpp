#include "sim/huge_page_buffer.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace loom {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}

HugePageBuffer::HugePageBuffer(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  if (bytes < kHugePage) {  // not worth a whole huge page
    void* p = std::calloc(bytes, 1);
    if (!p) throw std::bad_alloc();
    data_.reset(p);
    return;
  }
  // Whole huge pages, aligned to one, so every page of the buffer can be a huge one.
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // A private anonymous mapping is zero-filled by the kernel as each page is first touched,
  // so the buffer is not cleared here: clearing it would fault in and write every page
  // twice (the kernel's clear, then ours) and touch pages the caller may never use (the
  // run-ahead's record arena uses a part of each chunk). Over-map by a huge page and trim,
  // as mmap aligns to the base page only.
  const size_t mapped = rounded + kHugePage;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  const size_t tail = start + mapped - (aligned + rounded);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + rounded), tail);
  void* p = reinterpret_cast<void*>(aligned);
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failing it changes nothing but speed
  data_ = std::unique_ptr<void, HugePageFree>(p, HugePageFree{rounded});
#else
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  data_.reset(p);
#endif
}

void HugePageFree::operator()(void* p) const {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (mapped_bytes > 0) {
    munmap(p, mapped_bytes);
    return;
  }
#endif
  std::free(p);
}

}  // namespace loom
