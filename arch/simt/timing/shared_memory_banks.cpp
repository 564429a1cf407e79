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
int wavefronts_sorted(const ExecutedInstruction& x, int banks, int bank_bytes) {
  const Divider word(static_cast<uint64_t>(bank_bytes)), bank(static_cast<uint64_t>(banks));
  constexpr int kMaxWords = 2048;
  std::array<uint64_t, kMaxWords> words;
  int count = 0;
  for (int i = 0; i < x.n_segments; ++i) {
    const MemorySegment& seg = x.segments[i];
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

}  // namespace

int shared_wavefronts(const ExecutedInstruction& x, int banks, int bank_bytes) {
  // The common cases (every bank asked for at most one distinct word: unit stride,
  // broadcasts) are settled in one pass that stores nothing per word; only real conflicts
  // collect and sort the words. Bank and word sizes are powers of two on every GPU, so the
  // pass uses shifts and masks; a lane asking for the same word as the lane before (a
  // broadcast) is skipped.
  if (!is_power_of_two(static_cast<uint64_t>(bank_bytes)) || !is_power_of_two(static_cast<uint64_t>(banks)))
    return wavefronts_sorted(x, banks, bank_bytes);
  const int word_shift = std::countr_zero(static_cast<unsigned>(bank_bytes));
  // Words fewer than `banks` apart are in different banks, so an access whose span holds at
  // most `banks` words (unit stride, broadcasts, two rows of 16 floats) is one wavefront.
  if (x.span_end > x.span_begin &&
      ((x.span_end - 1) >> word_shift) - (x.span_begin >> word_shift) < static_cast<uint64_t>(banks))
    return 1;
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
  const MemorySegment* seg = x.segments.data();
  const MemorySegment* const end = seg + x.n_segments;
  uint64_t previous = ~uint64_t{0};  // the last single word claimed (broadcasts repeat it)
  for (; seg != end; ++seg) {
    if (seg->bytes == 0) continue;
    const uint64_t first = seg->address >> word_shift, last = (seg->address + seg->bytes - 1) >> word_shift;
    if (first == last) {  // the usual case: one word
      if (first == previous) continue;
      previous = first;
      if (!claim(first)) return wavefronts_sorted(x, banks, bank_bytes);
      continue;
    }
    for (uint64_t w = first; w <= last; ++w)
      if (!claim(w)) return wavefronts_sorted(x, banks, bank_bytes);
  }
  return 1;
}

}  // namespace loom::simt
