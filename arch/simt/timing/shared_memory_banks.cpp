#include "arch/simt/timing/shared_memory_banks.h"

#include <algorithm>
#include <array>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/timing_constants.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

// Any access: the most distinct words any one bank is asked for.
int wavefronts_sorted(const ExecutedInstruction& x, const Divider& word, const Divider& bank) {
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
  // collect and sort the words.
  std::array<uint64_t, kMaxSharedBanks> word_in_bank;
  uint64_t banks_used = 0;
  const Divider word(static_cast<uint64_t>(bank_bytes)), bank(static_cast<uint64_t>(banks));
  for (int i = 0; i < x.n_segments; ++i) {
    const MemorySegment& seg = x.segments[i];
    if (seg.bytes == 0) continue;
    const uint64_t last = word.quotient(seg.address + seg.bytes - 1);
    for (uint64_t w = word.quotient(seg.address); w <= last; ++w) {
      const uint64_t b = bank.remainder(w);
      const uint64_t bit = uint64_t{1} << b;
      if (!(banks_used & bit)) {
        banks_used |= bit;
        word_in_bank[b] = w;
      } else if (word_in_bank[b] != w) {
        return wavefronts_sorted(x, word, bank);
      }
    }
  }
  return 1;
}

}  // namespace loom::simt
