// sim/huge_page_buffer.h: zero-filled, the size asked for, writable to its last byte, small
// and large (huge-page) sizes alike, large ones aligned to a huge page, and moved rather
// than copied.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "sim/huge_page_buffer.h"

using loom::HugePageBuffer;

TEST_CASE("huge page buffer: zeroed, sized and writable, below and above one huge page") {
  for (const size_t bytes : {size_t{1}, size_t{4095}, size_t{2} << 20, (size_t{2} << 20) + 1, size_t{5} << 20}) {
    CAPTURE(bytes);
    HugePageBuffer b(bytes);
    REQUIRE(b.data() != nullptr);
    CHECK(b.size() == bytes);
    if (bytes >= (size_t{2} << 20))  // whole huge pages, so each can be one
      CHECK(reinterpret_cast<uintptr_t>(b.data()) % (size_t{2} << 20) == 0);
    auto* p = static_cast<uint8_t*>(b.data());
    CHECK(std::all_of(p, p + bytes, [](uint8_t v) { return v == 0; }));
    std::fill(p, p + bytes, uint8_t{0xa5});
    CHECK(p[bytes - 1] == 0xa5);
    HugePageBuffer moved = std::move(b);
    CHECK(moved.data() == p);
    CHECK(moved.size() == bytes);
    CHECK(b.data() == nullptr);
    CHECK(b.size() == 0);
  }
  const HugePageBuffer empty(0);
  CHECK(empty.data() == nullptr);
  CHECK(empty.size() == 0);
}
