// A zeroed, fixed-size buffer that asks the kernel to back it with huge pages. The SIMT
// model keeps megabytes of state (the registers of thousands of resident warps, the
// kernel's matrices) that it touches in no particular order; with 4 KiB pages every few
// accesses also miss the host's TLB. Linux backs a region with 2 MiB pages where transparent
// huge pages are enabled for it (madvise); elsewhere, if the kernel declines, or for
// buffers under 2 MiB, this is an ordinary buffer.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace loom {

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
  struct Free {
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Free> data_;
  size_t bytes_ = 0;
};

}  // namespace loom
