// A zeroed, fixed-size buffer that asks the kernel to back it with huge pages. The SIMT
// model keeps megabytes of state (the registers of thousands of resident warps, the
// kernel's matrices) that it touches in no particular order; with 4 KiB pages every few
// accesses also miss the host's TLB. Linux backs a region with 2 MiB pages where transparent
// huge pages are enabled for it (madvise); elsewhere, if the kernel declines, or for
// buffers under 2 MiB, this is an ordinary buffer. On Linux a large buffer is its own
// anonymous mapping, which the kernel zero-fills page by page as it is first touched: a
// page never touched costs nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace loom {

// Gives a HugePageBuffer's memory back (outside the class: a nested type's member
// initializer is not usable until the enclosing class is complete).
struct HugePageFree {
  size_t mapped_bytes = 0;  // a mapping of this many bytes (unmapped), else 0 (freed)
  void operator()(void* p) const;
};

class HugePageBuffer {
 public:
  HugePageBuffer() = default;
  explicit HugePageBuffer(size_t bytes);
  HugePageBuffer(HugePageBuffer&& other) noexcept : data_(std::move(other.data_)), bytes_(other.bytes_) { other.bytes_ = 0; }
  HugePageBuffer& operator=(HugePageBuffer&& other) noexcept {
    data_ = std::move(other.data_);
    bytes_ = other.bytes_;
    other.bytes_ = 0;
    return *this;
  }

  void* data() const { return data_.get(); }
  size_t size() const { return bytes_; }

 private:
  std::unique_ptr<void, HugePageFree> data_;
  size_t bytes_ = 0;
};

}  // namespace loom
