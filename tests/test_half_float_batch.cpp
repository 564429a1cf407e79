// floats_to_halves (arch/simt/ptx/half_float_batch.h): the chosen, the portable and the
// F16C versions against float_to_half, bit for bit, on every value a launch's random fp16
// inputs can hold, a sweep of all float bit patterns, and the edges (ties, subnormal
// results, overflow, infinities, NaNs with payloads); and the random fp16 buffers that
// write_initial_buffer fills are its fp32 values, rounded.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <limits>
#include <vector>

#include "arch/simt/kernels/kernel_reference.h"
#include "arch/simt/ptx/half_float.h"
#include "arch/simt/ptx/half_float_batch.h"
#include "sim/host_cpu.h"

using namespace loom::simt;

namespace {

using BatchFn = void (*)(const float*, size_t, uint16_t*);

std::vector<BatchFn> batch_versions() {
  std::vector<BatchFn> versions{&floats_to_halves, &floats_to_halves_portable};
  if (loom::host_has_avx2() && loom::host_has_f16c()) versions.push_back(&floats_to_halves_f16c);
  return versions;
}

// Mismatches of every version against float_to_half on `values` (each version also run on
// an odd-length tail, so the scalar remainder is checked too).
int mismatches(const std::vector<float>& values) {
  int wrong = 0;
  for (BatchFn convert : batch_versions()) {
    for (const size_t n : {values.size(), values.size() > 3 ? values.size() - 3 : values.size()}) {
      std::vector<uint16_t> out(n, 0xdead);
      convert(values.data(), n, out.data());
      for (size_t i = 0; i < n; ++i)
        if (out[i] != float_to_half(values[i])) ++wrong;
    }
  }
  return wrong;
}

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }

}  // namespace

TEST_CASE("floats_to_halves: every version rounds as float_to_half") {
  SUBCASE("every value a random fp16 input can hold: 24-bit integers over 2^23") {
    std::vector<float> values;
    values.reserve(size_t{1} << 24);
    for (int64_t r = 0; r < (int64_t{1} << 24); ++r)
      values.push_back(static_cast<float>(r - (1 << 23)) / float(1 << 23));
    CHECK(mismatches(values) == 0);
  }
  SUBCASE("a sweep of all float bit patterns") {
    std::vector<float> values;
    for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4093) values.push_back(from_bits(static_cast<uint32_t>(bits)));
    CHECK(mismatches(values) == 0);
  }
  SUBCASE("the edges") {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> values{0.0f, -0.0f, inf, -inf, 65504.0f, 65519.99f, 65520.0f, -65520.0f, 1e10f,
                              0x1p-14f, 0x1p-15f, 0x1p-24f, 0x1p-25f, 0x1.000002p-25f, -0x1p-25f, 0x1.8p-24f,
                              0x1p-26f, 0x1p-149f, -0x1p-126f, 1.0f + 0x1p-11f, 1.0f + 0x1.8p-11f, 1.0f + 0x1p-10f + 0x1p-11f,
                              from_bits(0x7fc00000u), from_bits(0xffc00001u), from_bits(0x7f800001u),  // quiet and
                              from_bits(0x7fa02000u), from_bits(0xff8fe000u), from_bits(0x7f802001u)};  // signalling NaNs
    // Every half's neighbours' midpoints and a step either side of them: the ties.
    for (uint32_t h = 0; h < 0x7c00u; h += 7) {
      const float a = half_to_float(static_cast<uint16_t>(h)), b = half_to_float(static_cast<uint16_t>(h + 1));
      const float mid = a + (b - a) / 2;  // exact: one more bit than fp16's
      values.insert(values.end(), {mid, -mid, std::nextafter(mid, 0.0f), std::nextafter(mid, inf)});
    }
    CHECK(mismatches(values) == 0);
  }
}

TEST_CASE("write_initial_buffer: a random fp16 buffer holds the fp32 buffer's values, rounded") {
  // Same seed, same count: the generator's values are the same, so the fp16 buffer must be
  // their float_to_half, element by element, across chunk boundaries and a ragged end.
  for (const int64_t count : {int64_t{1}, int64_t{7}, int64_t{512}, int64_t{1000}, int64_t{4099}}) {
    CAPTURE(count);
    BufferSpec floats{"x", ElementType::f32, count, BufferInit::random};
    BufferSpec halves{"h", ElementType::f16, count, BufferInit::random};
    std::vector<uint8_t> f(static_cast<size_t>(floats.bytes())), h(static_cast<size_t>(halves.bytes()));
    uint64_t state_f = 11, state_h = 11;
    write_initial_buffer(floats, state_f, f.data());
    write_initial_buffer(halves, state_h, h.data());
    CHECK(state_f == state_h);  // one draw per element either way
    CHECK(state_f != 11);
    int wrong = 0, nonzero = 0;
    for (int64_t i = 0; i < count; ++i) {
      float v;
      uint16_t got;
      std::memcpy(&v, f.data() + i * 4, 4);
      std::memcpy(&got, h.data() + i * 2, 2);
      if (got != float_to_half(v)) ++wrong;
      if (v != 0.0f) ++nonzero;
      CHECK(v >= -1.0f);
      CHECK(v < 1.0f);
    }
    CHECK(wrong == 0);
    CHECK(nonzero == count);
  }
}
