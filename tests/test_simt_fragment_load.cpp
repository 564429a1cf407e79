// The whole-warp a/b fragment load (arch/simt/ptx/warp_fragment_load.h), portable and AVX2,
// against the fragment layout exec_tensor.cpp documents, written out element by element:
// every lane of every register, from rows and from columns, at several pitches, into wide
// (zero-extended) and narrow registers that start out holding garbage.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "arch/simt/ptx/warp_fragment_load.h"
#include "sim/host_cpu.h"

using namespace loom::simt;

namespace {

uint16_t half_at(const std::vector<uint8_t>& m, uint64_t at) {
  return static_cast<uint16_t>(m[at] | m[at + 1] << 8);
}

// Register r of lane l: row l % 16, columns 2r (low half) and 2r + 1 (high half).
uint32_t expected(const std::vector<uint8_t>& m, uint64_t pitch, bool columns, int r, int lane) {
  const int row = lane % 16;
  const uint64_t low = columns ? 2 * r * pitch + 2 * row : row * pitch + 4 * r;
  const uint64_t high = columns ? (2 * r + 1) * pitch + 2 * row : low + 2;
  return half_at(m, low) | static_cast<uint32_t>(half_at(m, high)) << 16;
}

template <class L>
void check_version(LoadFragmentFn<L> load, std::mt19937_64& rng) {
  for (const uint64_t pitch : {32u, 34u, 64u, 2048u, 96u}) {
    std::vector<uint8_t> memory(15 * pitch + 32);
    for (uint8_t& b : memory) b = static_cast<uint8_t>(rng());
    for (const bool columns : {false, true}) {
      std::array<std::array<L, 32>, 8> regs;
      for (auto& reg : regs)
        for (L& lane : reg) lane = static_cast<L>(rng());
      L* out[8];
      for (int r = 0; r < 8; ++r) out[r] = regs[static_cast<size_t>(r)].data();
      load(memory.data(), pitch, columns, out);
      CAPTURE(pitch);
      CAPTURE(columns);
      for (int r = 0; r < 8; ++r)
        for (int lane = 0; lane < 32; ++lane)
          REQUIRE(regs[static_cast<size_t>(r)][static_cast<size_t>(lane)] == L{expected(memory, pitch, columns, r, lane)});
    }
  }
}

}  // namespace

TEST_CASE("simt fragment load: every version writes the layout's bits in every lane, wide and narrow") {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 20; ++trial) {
    check_version<uint64_t>(&load_fragment_portable<uint64_t>, rng);
    check_version<uint32_t>(&load_fragment_portable<uint32_t>, rng);
    check_version<uint64_t>(load_fragment<uint64_t>(), rng);
    check_version<uint32_t>(load_fragment<uint32_t>(), rng);
    if (loom::host_has_avx2()) {
      REQUIRE(static_cast<bool>(load_fragment_avx2<uint64_t>()));
      check_version<uint64_t>(load_fragment_avx2<uint64_t>(), rng);
      check_version<uint32_t>(load_fragment_avx2<uint32_t>(), rng);
    }
  }
}
