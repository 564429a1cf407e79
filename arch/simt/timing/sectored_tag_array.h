// A set-associative, sectored tag array with LRU replacement, shared by the L1 and the L2
// slices. Lines are allocated whole, sectors filled one by one. Each valid sector remembers
// the cycle its data arrives: execution happens at issue, so a miss installs its sectors at
// once with their future arrival cycle, and a later access that finds a sector still in
// flight merges with that miss (the MSHR merge) instead of fetching it again. Timing is the
// caller's business; this is only the state. 16-bit tag fingerprints live apart from the
// lines, in one block per set with the set's small state, each tag beside its line's
// sector state: a lookup tries the set's most recently used way first (consecutive warps
// often touch the same line; its tag is kept in the set's state too, so the guess reads
// no line), then scans the set's fingerprints
// (512 bytes for a V100 L1 set of 256 ways, where the tags would be 2 KiB; 32 per vector
// compare where the host has AVX-512, 16 with AVX2, way_scan.h) and compares full tags only
// where a fingerprint matches. A load of several lines probes them all first (probe_all,
// find_probed), so that the host's misses on their lines overlap. Each set keeps its ways
// in recency order as a doubly linked list, so a hit moves its way to the front and the
// victim of an allocation is the back, both in a few steps, where stamps would need a pass
// over the set (up to 256 ways in a V100's L1) to find the oldest. The simulated machine's
// caches are far larger than the host's, so what a lookup touches, not what it computes, is
// its cost: that is also why a sector's arrival cycle is kept in 32 bits, after a time base
// that the engine moves forward every kSectorTimeRebaseCycles (rebase_times), and not in
// 64, so that a line's state is 32 bytes (one half of a host cache line) rather than 48 (a
// V100's L1 and L2 state: 5.8 MB rather than 8.6).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/timing_constants.h"
#include "arch/simt/timing/way_scan.h"
#include "sim/huge_page_arena.h"

namespace loom::simt {

// 32-byte aligned, so that a line never straddles two host cache lines.
struct alignas(32) CacheLine {
  // The line's address + 1, 0 = invalid: SectoredTagArray's alone. Kept beside the sector
  // state, so that the tag compare of a lookup brings that state into the host's cache too.
  uint64_t tag = 0;
  uint8_t valid = 0, dirty = 0;  // sector masks
  // When each valid sector's data arrives: cycles after the array's time base, read and
  // written through SectoredTagArray::arrival and set_arrival.
  std::array<uint32_t, kMaxSectorsPerLine> arrival{};
};
static_assert(sizeof(CacheLine) == 32);

class SectoredTagArray {
 public:
  // bytes == 0: no cache (every lookup misses, nothing is allocated). Lines are indexed by
  // (line / index_stride) % sets, so an L2 slice that receives every slices-th line still
  // uses all of its sets.
  void configure(int64_t bytes, int line_bytes, int associativity, uint64_t index_stride);

  // The resident line's sectors or nullptr; a hit makes it most recently used.
  CacheLine* find(uint64_t line);
  // Where a lookup of `line` will look, found without touching any line: the way that
  // holds it or whose fingerprint matches it, or kAbsent when no way holds it. Also a hint:
  // asks the host for that way's line (or, in a full set, allocate's victim), both ends of
  // it, and its recency links, which the lookup moves to the front of the set's list
  // (unhinted, reading them was 29% of an L1 miss's wall time in the WMMA GEMM).
  // Changes no state. Inline: every line of a multi-line load is probed, in the L1 and,
  // where it misses, in the L2.
  static constexpr int kAbsent = -1;
  int probe(uint64_t line) const {
    if (ways_ == 0) return kAbsent;
    const size_t set = set_of(line);
    const size_t first = set * static_cast<size_t>(ways_);
    const SetState& state = state_of(set);
    int w = state.newest;
    if (state.newest_tag != line + 1) {
      w = find_print(prints_of(set), 0, ways_, fingerprint(line));
      if (w == ways_) {
        if (state.filled == ways_) prefetch_way(first + state.oldest);
        return kAbsent;
      }
    }
    prefetch_way(first + static_cast<size_t>(w));
    return w;
  }
  // probe() of each of lines[0..n), into ways[0..n), with one pass over the fingerprints
  // where the lines share a set (find_prints): a wmma.load's rows do in a V100's L1.
  // The same answers and hints as n probes.
  void probe_all(const uint64_t* lines, int n, int* ways) const;
  // find() for `line` probed at `way`, when `line` was not allocated in between (other lines
  // may have been): one tag compare confirms the probe, for a fingerprint match may be
  // another line's, and an allocation may have taken the way since. Inline: every line of
  // a multi-line load is looked up here, in the L1 and, where it misses, in the L2.
  CacheLine* find_probed(uint64_t line, int way) {
    if (way == kAbsent) return nullptr;
    const size_t set = set_of(line);
    const size_t first = set * static_cast<size_t>(ways_);
    CacheLine& l = lines_[first + static_cast<size_t>(way)];
    if (l.tag != line + 1) return find(line);
    make_newest(state_of(set), links_.data() + first, static_cast<uint16_t>(way), line + 1);
    return &l;
  }
  // The valid sectors of `line` where probe() found it at `way`; 0 where it is not there.
  // Reads the line, so it is best asked once the probe's hint has brought the line in.
  uint8_t valid_probed(uint64_t line, int way) const {
    if (way == kAbsent) return 0;
    const CacheLine& l = lines_[set_of(line) * static_cast<size_t>(ways_) + static_cast<size_t>(way)];
    return l.tag == line + 1 ? l.valid : 0;
  }
  // Allocates `line` (not resident) over the LRU way of its set (an invalid way first);
  // returns its (empty) sectors, or nullptr when there is no cache. The previous occupant's
  // address and dirty sectors go to `evicted_line` and `evicted_dirty` (0: nothing to write).
  CacheLine* allocate(uint64_t line, uint64_t& evicted_line, uint8_t& evicted_dirty);

  // Sector `s` of `line` (a valid sector of this array's): the cycle its data arrives.
  int64_t arrival(const CacheLine& line, int s) const { return time_base_ + line.arrival[static_cast<size_t>(s)]; }
  // Sets that cycle: at or after the time base, and less than 2^32 cycles after it (else
  // InputError: a fill further ahead than the engine's rebasing allows).
  void set_arrival(CacheLine& line, int s, int64_t cycle) {
    const uint64_t after = static_cast<uint64_t>(cycle - time_base_);
    if (after > UINT32_MAX) [[unlikely]]
      arrival_out_of_range(cycle);
    line.arrival[static_cast<size_t>(s)] = static_cast<uint32_t>(after);
  }
  // Moves the time base to `now`, which no later lookup precedes: a sector that arrived
  // before it is kept as arriving at `now`, which every later lookup treats the same
  // (its data is there). Only the engine calls it, once every kSectorTimeRebaseCycles.
  void rebase_times(int64_t now);
  int64_t time_base() const { return time_base_; }

  bool enabled() const { return ways_ > 0; }
  const HugePageVector<CacheLine>& lines() const { return lines_; }

 private:
  // A shift and a mask where the stride and the set count are powers of two (every
  // shipped config): each line of a load asks for its set three to five times.
  size_t set_of(uint64_t line) const {
    if (set_shift_ >= 0) return static_cast<size_t>((line >> set_shift_) & set_mask_);
    return static_cast<size_t>(set_count_.remainder(stride_.quotient(line)));
  }

  // What a lookup at way `i` (of lines_) touches: its line's state (in one host cache line)
  // and its links.
  void prefetch_way(size_t i) const {
    __builtin_prefetch(&lines_[i], 1);
    __builtin_prefetch(&links_[i], 1);
  }
  [[noreturn]] void arrival_out_of_range(int64_t cycle) const;
  // Never 0, so that 0 marks an invalid way.
  static uint16_t fingerprint(uint64_t line) {
    const auto f = static_cast<uint16_t>((line * 0x9e3779b97f4a7c15ull) >> 48);
    return f ? f : 1;
  }
  // Per set: the ends of its recency list and how many ways have ever been filled. Lines
  // are never invalidated, so the ways fill lowest first and the lowest invalid way is
  // always `filled`: an allocation needs no scan for one. Only filled ways are listed.
  // The newest way's tag is repeated here, so that the first guess of a lookup reads the
  // set's small state and not a line that is, more often than not, in no host cache.
  struct SetState {
    uint64_t newest_tag = 0;  // lines_[newest].tag; 0 while the set is empty
    uint16_t newest = 0, oldest = 0;
    uint16_t filled = 0;
  };
  // Per way: its neighbours in its set's recency list.
  struct Link {
    uint16_t older = 0, newer = 0;
  };
  // Moves a filled way to the front of its set's list; `tag` is its line's. Inline, as
  // find_probed, which runs it for every line a multi-line load hits.
  static void make_newest(SetState& state, Link* links, uint16_t way, uint64_t tag) {
    if (way == state.newest) {
      state.newest_tag = tag;  // unchanged for a hit; the new line's for a one-way set's victim
      return;
    }
    const Link l = links[way];
    // Unlink: `way` has a newer neighbour (it is not the newest); an older one unless it is
    // the oldest.
    links[l.newer].older = l.older;
    if (way == state.oldest)
      state.oldest = l.newer;
    else
      links[l.older].newer = l.newer;
    push_newest(state, links, way, tag);
  }
  // Puts a way that is not in the (non-empty) list at its front.
  static void push_newest(SetState& state, Link* links, uint16_t way, uint64_t tag) {
    links[way].older = state.newest;
    links[state.newest].newer = way;
    state.newest = way;
    state.newest_tag = tag;
  }

  // Per set, one block of whole host lines: fingerprint(line) of each of its ways (0 =
  // invalid), padded for the vector scan (way_scan.h), with the set's SetState in the
  // block's last 16 bytes. A lookup reads both, and in a set of up to 24 ways (a V100's L2
  // slices) they share one host line, where in arrays of their own they took two misses.
  // A scan may read the state as padding; what padding holds is never an answer.
  static constexpr size_t kStateUnits = sizeof(SetState) / sizeof(uint16_t);
  const uint16_t* prints_of(size_t set) const { return blocks_.data() + set * block_units_; }
  SetState& state_of(size_t set) {
    return *std::launder(reinterpret_cast<SetState*>(blocks_.data() + (set + 1) * block_units_ - kStateUnits));
  }
  const SetState& state_of(size_t set) const {
    return *std::launder(reinterpret_cast<const SetState*>(blocks_.data() + (set + 1) * block_units_ - kStateUnits));
  }

  // On huge pages (huge_page_arena.h): with 4 KiB pages most lookups also missed the TLB.
  HugePageVector<uint16_t> blocks_;
  size_t block_units_ = 0;  // uint16_t units per set's block
  HugePageVector<Link> links_;
  HugePageVector<CacheLine> lines_;
  int64_t time_base_ = 0;  // what a line's arrival times count from
  uint64_t sets_ = 0;
  int ways_ = 0;
  Divider stride_, set_count_;
  int set_shift_ = -1;     // log2(index stride), or -1 unless it and the set count are powers of two
  uint64_t set_mask_ = 0;  // sets - 1, where set_shift_ >= 0
};

}  // namespace loom::simt
