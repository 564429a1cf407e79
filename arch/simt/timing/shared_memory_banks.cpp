#include "arch/simt/timing/shared_memory_banks.h"

#include <algorithm>
#include <array>
#include <bit>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/timing_constants.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

// Any access: the most distinct words any one bank is asked for.
int wavefronts_sorted(const MemorySegment* segments, int n, int banks, int bank_bytes) {
  const Divider word(static_cast<uint64_t>(bank_bytes)), bank(static_cast<uint64_t>(banks));
  constexpr int kMaxWords = 2048;
  std::array<uint64_t, kMaxWords> words;
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const MemorySegment& seg = segments[i];
    if (seg.bytes == 0) continue;
    const uint64_t last = word.quotient(seg.address + seg.bytes - 1);
    for (uint64_t w = word.quotient(seg.address); w <= last; ++w) {
      LOOM_CHECK(count < kMaxWords, "simt shared memory", "shared-memory instruction touches too many words");
      words[count++] = w;
    }
  }
  std::sort(words.begin(), words.begin() + count);
  const int distinct = static_cast<int>(std::unique(words.begin(), words.begin() + count) - words.begin());
  std::array<int, kMaxSharedBanks> per_bank{};
  int wavefronts = 1;
  for (int i = 0; i < distinct; ++i)
    wavefronts = std::max(wavefronts, ++per_bank[bank.remainder(words[i])]);
  return wavefronts;
}

// The common cases (every bank asked for at most one distinct word: unit stride,
// broadcasts) in one pass that stores nothing per word; only real conflicts collect and
// sort the words. Bank and word sizes are powers of two here (on every GPU), so the pass
// uses shifts and masks; a lane asking for the same word as the lane before (a broadcast)
// is skipped.
int wavefronts_claimed(const MemorySegment* segments, int n, int banks, int bank_bytes) {
  const int word_shift = std::countr_zero(static_cast<unsigned>(bank_bytes));
  const uint64_t bank_mask = static_cast<uint64_t>(banks) - 1;
  std::array<uint64_t, kMaxSharedBanks> word_in_bank;
  uint64_t banks_used = 0;
  // Claims word w's bank; false when the bank already serves another word.
  auto claim = [&](uint64_t w) {
    const uint64_t b = w & bank_mask, bit = uint64_t{1} << b;
    if (banks_used & bit) return word_in_bank[b] == w;
    banks_used |= bit;
    word_in_bank[b] = w;
    return true;
  };
  uint64_t previous = ~uint64_t{0};  // the last single word claimed (broadcasts repeat it)
  for (const MemorySegment* seg = segments; seg != segments + n; ++seg) {
    if (seg->bytes == 0) continue;
    const uint64_t first = seg->address >> word_shift, last = (seg->address + seg->bytes - 1) >> word_shift;
    if (first == last) {  // the usual case: one word
      if (first == previous) continue;
      previous = first;
      if (!claim(first)) return wavefronts_sorted(segments, n, banks, bank_bytes);
      continue;
    }
    for (uint64_t w = first; w <= last; ++w)
      if (!claim(w)) return wavefronts_sorted(segments, n, banks, bank_bytes);
  }
  return 1;
}

}  // namespace

int shared_wavefronts(const ExecutedInstruction& x, int banks, int bank_bytes) {
  const bool powers_of_two =
      is_power_of_two(static_cast<uint64_t>(bank_bytes)) && is_power_of_two(static_cast<uint64_t>(banks));
  if (powers_of_two && one_wavefront_by_span(x, std::countr_zero(static_cast<unsigned>(bank_bytes)), banks)) return 1;
  std::array<MemorySegment, 32> scratch;  // the lane form's segments (ExecutedInstruction::lane_bytes)
  const MemorySegment* segments = nullptr;
  const int n = memory_segments(x, scratch, segments);
  return powers_of_two ? wavefronts_claimed(segments, n, banks, bank_bytes) : wavefronts_sorted(segments, n, banks, bank_bytes);
}

}  // namespace loom::simt
