#include "sim/huge_page_buffer.h"

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
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: failing it changes nothing but speed
#endif
  std::memset(p, 0, bytes);
  data_.reset(p);
}

void HugePageBuffer::Free::operator()(void* p) const { std::free(p); }

}  // namespace loom
