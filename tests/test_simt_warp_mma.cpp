// The AVX-512 and AVX2 whole-warp MMAs (arch/simt/ptx/warp_mma.h), each against a plain
// reference written from the fragment layout exec_tensor.cpp documents: every bit of every
// destination lane, on random fragments seeded with the values where conversions and
// arithmetic go wrong (subnormals, infinities, signalling and quiet NaNs with payloads,
// signed zeros). A NaN result need only be a NaN: where two NaNs meet, the payload follows
// the host's operand order, which the compiler chooses (warp_mma.h).
#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "arch/simt/ptx/half_float.h"
#include "arch/simt/ptx/warp_mma.h"

using namespace loom::simt;

namespace {

using Register = std::array<uint64_t, 32>;

uint16_t random_input(std::mt19937_64& rng) {
  static const uint16_t specials[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x7c00, 0xfc00, 0x7c01, 0x7e00, 0xfd55, 0x3c00, 0x7bff};
  if (rng() % 8 == 0) return specials[rng() % std::size(specials)];
  return static_cast<uint16_t>(rng());
}

float input_float(uint16_t bits, bool bf16) { return bf16 ? bfloat_to_float(bits) : half_to_float(bits); }

// Operands in lanes 0-15 (row = lane, register r: columns 2r, 2r+1); lanes 16-31 repeat
// them, and the upper 32 bits of a lane are zero, as wmma.load leaves them.
std::array<Register, 8> random_operand(std::mt19937_64& rng) {
  std::array<Register, 8> regs{};
  for (auto& r : regs)
    for (int lane = 0; lane < 16; ++lane) {
      r[lane] = random_input(rng) | uint64_t{random_input(rng)} << 16;
      r[lane + 16] = r[lane];
    }
  return regs;
}

std::array<Register, 8> random_accumulator(std::mt19937_64& rng) {
  static const uint32_t specials[] = {0x7f800001, 0xffc00123, 0x80000000, 0x00000001, 0xff800000};
  std::array<Register, 8> regs{};
  for (auto& r : regs)
    for (uint64_t& lane : r) {
      const float f = std::uniform_real_distribution<float>(-4, 4)(rng);
      lane = rng() % 16 == 0 ? specials[rng() % std::size(specials)] : std::bit_cast<uint32_t>(f);
    }
  return regs;
}

// D(m, n) = C(m, n) + a(m, 0) b(0, n) + ... + a(m, 15) b(15, n), one rounding per operation.
std::array<Register, 8> reference(const std::array<Register, 8>& a, const std::array<Register, 8>& b,
                                  const std::array<Register, 8>& c, bool bf16) {
  auto element = [&](const std::array<Register, 8>& x, int row, int column) {
    return input_float(static_cast<uint16_t>(x[column / 2][row] >> (16 * (column % 2))), bf16);
  };
  std::array<Register, 8> d{};
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      const int lane = 2 * m + n / 8, reg = n % 8;
      float sum = std::bit_cast<float>(static_cast<uint32_t>(c[reg][lane]));
      for (int k = 0; k < 16; ++k) {
        const float product = element(a, m, k) * element(b, k, n);
        sum = sum + product;
      }
      d[reg][lane] = std::bit_cast<uint32_t>(sum);
    }
  return d;
}

// Equal bits, or both NaN; the upper 32 bits of a lane always zero.
bool same_results(const std::array<Register, 8>& got, const std::array<Register, 8>& want) {
  for (int r = 0; r < 8; ++r)
    for (int lane = 0; lane < 32; ++lane) {
      const uint64_t g = got[r][lane], w = want[r][lane];
      if (g == w) continue;
      if (g >> 32 != 0 || !std::isnan(std::bit_cast<float>(static_cast<uint32_t>(g))) ||
          !std::isnan(std::bit_cast<float>(static_cast<uint32_t>(w))))
        return false;
    }
  return true;
}

// Every check on one version: `wide` and `narrow` its two register widths.
void check_version(const char* version, WholeWarpMmaFn<uint64_t> (*wide)(bool), WholeWarpMmaFn<uint32_t> (*narrow)(bool)) {
  for (const bool bf16 : {false, true}) {
    const WholeWarpMmaFn<uint64_t> mma = wide(bf16);
    const WholeWarpMmaFn<uint32_t> narrow_mma = narrow(bf16);
    if (!mma || !narrow_mma) {
      MESSAGE("this host has no " << version << ": that version is not checked here");
      return;
    }
    CAPTURE(version);
    std::mt19937_64 rng(bf16 ? 11 : 7);
    for (int trial = 0; trial < 300; ++trial) {
      CAPTURE(bf16);
      CAPTURE(trial);
      const auto a = random_operand(rng), b = random_operand(rng), c = random_accumulator(rng);
      const auto expected = reference(a, b, c, bf16);
      std::array<Register, 8> d;
      d.fill(Register{});
      std::array<const uint64_t*, 8> pa, pb, pc;
      std::array<uint64_t*, 8> pd;
      for (int r = 0; r < 8; ++r) pa[r] = a[r].data(), pb[r] = b[r].data(), pc[r] = c[r].data(), pd[r] = d[r].data();
      mma(pa.data(), pb.data(), pc.data(), pd.data());
      CHECK(same_results(d, expected));
      // D written over C, as `wmma.mma ... {%f1..}, ..., {%f1..}` does.
      std::array<Register, 8> in_place = c;
      for (int r = 0; r < 8; ++r) pc[r] = pd[r] = in_place[r].data();
      mma(pa.data(), pb.data(), pc.data(), pd.data());
      CHECK(same_results(in_place, expected));
      // The narrow twin (32-bit lanes, register_slots.h) on the same values.
      using Narrow = std::array<uint32_t, 32>;
      std::array<Narrow, 8> na, nb, nc, nd{};
      for (int r = 0; r < 8; ++r)
        for (int lane = 0; lane < 32; ++lane) {
          na[r][lane] = static_cast<uint32_t>(a[r][lane]);
          nb[r][lane] = static_cast<uint32_t>(b[r][lane]);
          nc[r][lane] = static_cast<uint32_t>(c[r][lane]);
        }
      std::array<const uint32_t*, 8> qa, qb, qc;
      std::array<uint32_t*, 8> qd;
      for (int r = 0; r < 8; ++r) qa[r] = na[r].data(), qb[r] = nb[r].data(), qc[r] = nc[r].data(), qd[r] = nd[r].data();
      narrow_mma(qa.data(), qb.data(), qc.data(), qd.data());
      std::array<Register, 8> widened{};
      for (int r = 0; r < 8; ++r)
        for (int lane = 0; lane < 32; ++lane) widened[r][lane] = nd[r][lane];
      CHECK(same_results(widened, expected));
      // Lanes 16-31 of a and b are never read (DecodedInstruction::half_warp_sources: a hint
      // for the MMA leaves them out): other values there change no bit.
      for (int r = 0; r < 8; ++r)
        for (int lane = 16; lane < 32; ++lane) na[r][lane] = nb[r][lane] = static_cast<uint32_t>(rng());
      nd = {};
      narrow_mma(qa.data(), qb.data(), qc.data(), qd.data());
      for (int r = 0; r < 8; ++r)
        for (int lane = 0; lane < 32; ++lane) widened[r][lane] = nd[r][lane];
      CHECK(same_results(widened, expected));
    }
  }
}
}  // namespace

TEST_CASE("simt warp mma: each vector version gives the reference's bits, f16 and bf16, D apart from or over C, wide and narrow") {
  check_version("AVX-512", &whole_warp_mma_f32_avx512<uint64_t>, &whole_warp_mma_f32_avx512<uint32_t>);
  check_version("AVX2", &whole_warp_mma_f32_avx2<uint64_t>, &whole_warp_mma_f32_avx2<uint32_t>);
}

TEST_CASE("simt warp mma: the version taken is the widest the host has") {
  for (const bool bf16 : {false, true}) {
    const auto widest = whole_warp_mma_f32_avx512<uint32_t>(bf16);
    const bool taken = whole_warp_mma_f32<uint32_t>(bf16) == (widest ? widest : whole_warp_mma_f32_avx2<uint32_t>(bf16));
    CHECK(taken);
  }
}
