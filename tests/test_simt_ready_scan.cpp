// The scheduler's ready scan (arch/simt/timing/ready_scan.h): the portable and the AVX2
// versions against a plain reference, and the scoreboard's lazy dropping of landed writes.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <deque>
#include <initializer_list>
#include <random>
#include <vector>

#include "arch/simt/timing/ready_scan.h"
#include "arch/simt/timing/scoreboard.h"
#include "arch/simt/timing/timing_constants.h"
#include "sim/host_cpu.h"

using namespace loom::simt;

namespace {

ReadyScan reference(const std::vector<int64_t>& ready_at, int64_t now) {
  ReadyScan r{0, kNever};
  for (size_t i = 0; i < ready_at.size(); ++i) {
    if (ready_at[i] <= now) r.ready |= uint64_t{1} << i;
    else r.soonest = std::min(r.soonest, ready_at[i]);
  }
  return r;
}

}  // namespace

TEST_CASE("simt timing: the ready scan finds the ready warps and the next ready cycle") {
  std::mt19937_64 rng(7);
  int avx2_checked = 0, some_ready = 0, some_later = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const size_t count = rng() % 65;  // 0 .. 64 warps, every tail length
    const int64_t now = static_cast<int64_t>(rng() % 200);
    std::vector<int64_t> ready_at(count);
    for (int64_t& r : ready_at) {
      const uint64_t kind = rng() % 8;
      r = kind == 0 ? kNever : kind == 1 ? now : kind == 2 ? now + 1 : static_cast<int64_t>(rng() % 400);
    }
    const ReadyScan want = reference(ready_at, now);
    const ReadyScan portable = scan_ready_portable(ready_at.data(), count, now, kNever);
    CHECK(portable.ready == want.ready);
    CHECK(portable.soonest == want.soonest);
    const ReadyScan chosen = scan_ready(ready_at.data(), count, now, kNever);
    CHECK(chosen.ready == want.ready);
    CHECK(chosen.soonest == want.soonest);
    if (loom::host_has_avx2()) {
      const ReadyScan avx2 = scan_ready_avx2(ready_at.data(), count, now, kNever);
      CHECK(avx2.ready == want.ready);
      CHECK(avx2.soonest == want.soonest);
      ++avx2_checked;
    }
    some_ready += want.ready != 0;
    some_later += want.soonest != kNever;
  }
  CHECK(some_ready > 1000);
  CHECK(some_later > 1000);
  MESSAGE("AVX2 version checked in " << avx2_checked << " of 20000 trials (0 where the host has no AVX2)");
}

TEST_CASE("simt timing: the waking scan finds the warps ready inside a window") {
  std::mt19937_64 rng(11);
  int some_waking = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const size_t count = rng() % 65;  // 0 .. 64 warps, every tail length
    const int64_t from = static_cast<int64_t>(rng() % 200), last = from + static_cast<int64_t>(rng() % 40);
    std::vector<int64_t> ready_at(count);
    for (int64_t& r : ready_at) {
      const uint64_t kind = rng() % 8;
      r = kind == 0 ? kNever : kind == 1 ? from : kind == 2 ? from + 1 : kind == 3 ? last : static_cast<int64_t>(rng() % 300);
    }
    uint64_t want = 0;
    for (size_t i = 0; i < count; ++i)
      if (ready_at[i] > from && ready_at[i] <= last) want |= uint64_t{1} << i;
    CHECK(scan_waking_portable(ready_at.data(), count, from, last) == want);
    CHECK(scan_waking(ready_at.data(), count, from, last) == want);
    if (loom::host_has_avx2()) CHECK(scan_waking_avx2(ready_at.data(), count, from, last) == want);
    some_waking += want != 0;
  }
  CHECK(some_waking > 1000);
}

namespace {
// An instruction that writes `registers`, for reserving scoreboard entries.
StaticInstruction writing(std::initializer_list<uint16_t> registers) {
  StaticInstruction inst;
  for (uint16_t r : registers) inst.dst[inst.n_dst++] = r;
  return inst;
}
// An instruction that reads `reg`, for asking when it may issue.
StaticInstruction reading(uint16_t reg) {
  StaticInstruction inst;
  inst.n_src = 1;
  inst.src[0] = reg;
  return inst;
}
}  // namespace

TEST_CASE("simt timing: landed writes linger in the scoreboard without changing any answer") {
  const StaticInstruction other = reading(5), use = reading(70);
  StaticInstruction many;
  many.n_dst = 8;
  for (int k = 0; k < 8; ++k) many.dst[static_cast<size_t>(k)] = static_cast<uint16_t>(100 + k);
  ScoreboardSpill spill;
  spill.reserve(1);
  Scoreboard sb;
  sb.attach(spill.of(0));
  const StaticInstruction r70 = writing({70});
  sb.reserve(r70, 10);
  CHECK(sb.clear_at(other, 20) == 20);  // no shared filter bit: nothing is dropped
  CHECK(sb.pending() == 1);
  CHECK(sb.clear_at(use, 20) == 20);  // its register: the landed write is dropped first
  CHECK(sb.pending() == 0);
  // A scoreboard full of writes, most of them landed: room is counted after dropping them.
  std::vector<StaticInstruction> singles;
  for (int k = 0; k < 100; ++k) singles.push_back(writing({static_cast<uint16_t>(200 + k)}));
  for (int k = 0; k < kScoreboardEntries - 1; ++k) sb.reserve(singles[static_cast<size_t>(k % 50)], k < 60 ? 5 : 90);
  CHECK(sb.pending() == kScoreboardEntries - 1);
  CHECK(sb.clear_at(many, 10) == 10);  // 60 landed by cycle 10: room for 8
  CHECK(sb.pending() == 3);
  for (int k = 0; k < kScoreboardEntries - 3; ++k) sb.reserve(singles[static_cast<size_t>(50 + k % 40)], 50 + k);
  CHECK(sb.clear_at(many, 10) == 57);  // 8 of the 64 must land: the 8th earliest lands at 57
}

TEST_CASE("simt timing: scoreboard answers match a plain list of pending writes") {
  // Random instructions (registers up to 400, so ids alias mod 256 both ways) issued as soon
  // as the scoreboard allows, each reserving its destinations, which land together; the
  // answer must equal the one computed from every write ever reserved: the latest pending
  // write to one of the instruction's registers, or the cycle enough writes land to make
  // room.
  std::mt19937_64 rng(7);
  struct Write {
    int64_t ready;
    uint16_t reg;
  };
  int blocked = 0, full = 0;
  ScoreboardSpill spill;
  spill.reserve(3);
  for (int trial = 0; trial < 200; ++trial) {
    Scoreboard sb;
    sb.attach(spill.of(static_cast<size_t>(trial % 3)));
    std::vector<Write> all;
    std::deque<StaticInstruction> issued;  // reserved entries point into their instruction
    const int reg_limit = trial % 2 ? 400 : 200;
    // Half the trials: few operands and long latencies, so the scoreboard fills up.
    const bool filling = trial % 4 >= 2;
    int64_t now = 0;
    for (int step = 0; step < 300; ++step) {
      StaticInstruction inst;
      inst.n_src = static_cast<uint8_t>(rng() % (filling ? 2 : 25));
      inst.n_dst = static_cast<uint8_t>(rng() % 9);
      for (int i = 0; i < inst.n_src; ++i) inst.src[static_cast<size_t>(i)] = static_cast<uint16_t>(rng() % reg_limit);
      for (int i = 0; i < inst.n_dst; ++i) inst.dst[static_cast<size_t>(i)] = static_cast<uint16_t>(rng() % reg_limit);
      int64_t expected = now;
      std::vector<int64_t> live;
      for (const Write& w : all) {
        if (w.ready <= now) continue;
        live.push_back(w.ready);
        bool mine = false;
        for (int i = 0; i < inst.n_src; ++i) mine |= inst.src[static_cast<size_t>(i)] == w.reg;
        for (int i = 0; i < inst.n_dst; ++i) mine |= inst.dst[static_cast<size_t>(i)] == w.reg;
        if (mine) expected = std::max(expected, w.ready);
      }
      const int over = static_cast<int>(live.size()) + inst.n_dst - kScoreboardEntries;
      if (over > 0) {
        ++full;
        std::sort(live.begin(), live.end());
        expected = std::max(expected, live[static_cast<size_t>(over - 1)]);
      }
      const int64_t got = sb.clear_at(inst, now);
      REQUIRE(got == expected);
      if (got > now) ++blocked;
      now = got;
      const StaticInstruction& kept = issued.emplace_back(inst);
      sb.make_room(kept, now);
      REQUIRE(sb.pending() + inst.n_dst <= kScoreboardEntries);
      const int64_t ready = now + 1 + static_cast<int64_t>(rng() % (filling ? 600 : 60));
      sb.reserve(kept, ready);
      for (int i = 0; i < inst.n_dst; ++i) all.push_back(Write{ready, inst.dst[static_cast<size_t>(i)]});
      now += static_cast<int64_t>(rng() % 3);
    }
  }
  CHECK(blocked > 10000);
  CHECK(full > 30);
}

TEST_CASE("simt timing: scoreboards sharing one spill keep their own entries past the inline ones") {
  // Three warp slots' scoreboards filled to capacity in turn, a write at a time, each
  // register's write landing at a cycle that names its scoreboard: rows that overlapped
  // would hand one scoreboard another's cycles.
  constexpr int kSlots = 3;
  ScoreboardSpill spill;
  spill.reserve(kSlots);
  std::array<Scoreboard, kSlots> boards;
  for (int k = 0; k < kSlots; ++k) boards[static_cast<size_t>(k)].attach(spill.of(static_cast<size_t>(k)));
  std::vector<StaticInstruction> writes;
  for (int r = 0; r < kScoreboardEntries; ++r) writes.push_back(writing({static_cast<uint16_t>(r)}));
  auto landing = [](int board, int reg) { return int64_t{1000} * (board + 1) + reg; };
  for (int r = 0; r < kScoreboardEntries; ++r)
    for (int k = 0; k < kSlots; ++k) boards[static_cast<size_t>(k)].reserve(writes[static_cast<size_t>(r)], landing(k, r));
  for (int k = 0; k < kSlots; ++k) {
    CAPTURE(k);
    CHECK(boards[static_cast<size_t>(k)].pending() == kScoreboardEntries);
    for (int r = 0; r < kScoreboardEntries; ++r) {
      CAPTURE(r);
      CHECK(boards[static_cast<size_t>(k)].clear_at(reading(static_cast<uint16_t>(r)), 0) == landing(k, r));
    }
  }
  // Landed writes dropped from the front move the spilled entries inward: the rest stay.
  Scoreboard& first = boards[0];
  const StaticInstruction use_last = reading(static_cast<uint16_t>(kScoreboardEntries - 1));
  CHECK(first.clear_at(use_last, landing(0, kScoreboardEntries / 2)) == landing(0, kScoreboardEntries - 1));
  CHECK(first.pending() == kScoreboardEntries / 2 - 1);
  CHECK(boards[1].pending() == kScoreboardEntries);
  CHECK(boards[1].clear_at(reading(40), 0) == landing(1, 40));
}
