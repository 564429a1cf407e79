#include "arch/simt/ptx/warp_record_stream.h"

#include <cstddef>
#include <cstring>

#include "sim/error.h"

namespace loom::simt {

namespace {

struct Record {
  uint16_t pc = 0;
  uint16_t next_pc = 0;  // valid with kHasNext
  uint16_t flags = 0;
  uint8_t n_segments = 0;
  // How many plain instructions (every lane active, no memory) at the pcs after pc the
  // record also stands for: a straight run of arithmetic, alone or after the load it
  // follows, takes one record. The record's own fields (mask, memory) are its first
  // instruction's; done, next_pc and the jump after are its last's.
  uint8_t more = 0;
};
static_assert(sizeof(Record) == 8);
// A jump to the next block: kJump in a record's flags, the block's address in the 8 bytes
// after it (a jump takes 16 bytes).
constexpr size_t kJumpBytes = 16;
constexpr size_t kFlagsAt = offsetof(Record, flags);

struct MemoryHeader {
  uint16_t lane_bytes = 0;
  MemorySpace space = MemorySpace::none;
  uint8_t pad = 0;
};
static_assert(sizeof(MemoryHeader) == 4);
// The largest record (a partial mask, a span and every segment) fits a block with its jump,
// so a record never spans two blocks and its fields' end fits 16 bits.
static_assert(sizeof(Record) + sizeof(uint32_t) + sizeof(MemoryHeader) + 16 +
                      ExecutedInstruction::kMaxSegments * sizeof(MemorySegment) + kJumpBytes <=
                  RecordArena::kBlockBytes,
              "a record larger than a block");

enum : uint16_t {
  kMemory = 1,         // a memory header follows
  kSpan = 2,           // then the span
  kStridedRows = 4,    // the segments as the first and a stride
  kStridedLanes = 8,   // the lane addresses as the first and a stride
  kDone = 16,          // the warp finished with this instruction
  kHasNext = 32,       // next_pc is set
  kJumpAfter = 64,     // the next record is in another block (a jump follows this one)
  kJump = 128,
  kPartialMask = 256,  // the active mask follows (else all 32 lanes)
  kCompactRows = 512,  // CompactRows follows, and nothing else
  kRowsDelta = 1024,   // an int32 follows, and nothing else: the last CompactRows' rows, moved
};

using CompactRows = WarpRecordStream::CompactRows;

// kRowsDelta: rows as the last CompactRows recorded, but `delta` bytes further on (a
// wmma.load of the next k step, or of the other matrix at the same row stride).
using RowsDelta = int32_t;

// Whether `rows` are the rows of the CompactRows recorded at `at` moved by a delta that
// fits RowsDelta; the delta if so.
bool rows_delta(const CompactRows& rows, const uint8_t* at, RowsDelta& delta) {
  CompactRows base;
  std::memcpy(&base, at, sizeof base);
  const auto d = static_cast<int64_t>(rows.address - base.address);
  if (rows.stride != base.stride || rows.bytes != base.bytes || rows.lane != base.lane || rows.space != base.space ||
      d != static_cast<RowsDelta>(d))
    return false;
  delta = static_cast<RowsDelta>(d);
  return true;
}

uint16_t flags_at(const uint8_t* record) {
  uint16_t f;
  std::memcpy(&f, record + kFlagsAt, sizeof f);
  return f;
}

void or_flags(uint8_t* record, uint16_t more) {
  const uint16_t f = flags_at(record) | more;
  std::memcpy(record + kFlagsAt, &f, sizeof f);
}

// The lane addresses as a0 + lane * stride (32-bit arithmetic, as the addresses are)?
bool lanes_strided(const ExecutedInstruction& x) {
  const uint32_t stride = x.lane_address[1] - x.lane_address[0];
  for (uint32_t l = 2; l < 32; ++l)
    if (x.lane_address[l] - x.lane_address[0] != l * stride) return false;
  return true;
}

// Rows i = 0..n-1 at first.address + i * stride, of first.bytes, for lanes first.lane + i?
bool rows_strided(const ExecutedInstruction& x) {
  if (x.n_segments < 3) return false;
  const MemorySegment& f = x.segments[0];
  const uint64_t stride = x.segments[1].address - f.address;
  for (int i = 1; i < x.n_segments; ++i) {
    const MemorySegment& s = x.segments[static_cast<size_t>(i)];
    if (s.bytes != f.bytes || s.lane != f.lane + i || s.address - f.address != static_cast<uint64_t>(i) * stride)
      return false;
  }
  return true;
}

// Replay's side of rows_strided: n rows at address + i * stride (64-bit wrap-around).
void expand_rows(ExecutedInstruction& out, int n, uint64_t address, uint64_t stride, uint32_t bytes, uint8_t lane) {
  out.n_segments = static_cast<uint16_t>(n);
  for (int i = 0; i < n; ++i)
    out.segments[static_cast<size_t>(i)] = {address + stride * static_cast<uint64_t>(i), bytes,
                                            static_cast<uint8_t>(lane + i)};
}

// x's rows, already found rows_strided, in the compact form, if they fit it.
bool compact_rows(const ExecutedInstruction& x, CompactRows& out) {
  if (x.span_end) return false;
  const MemorySegment& f = x.segments[0];
  const auto stride = static_cast<int64_t>(x.segments[1].address - f.address);
  if (stride != static_cast<int32_t>(stride) || f.bytes > UINT16_MAX) return false;
  out = {f.address, static_cast<int32_t>(stride), static_cast<uint16_t>(f.bytes), f.lane, x.space};
  return true;
}

uint8_t* block_of(const uint8_t* inside) {
  return reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(inside) & ~uintptr_t{RecordArena::kBlockBytes - 1});
}

}  // namespace

uint8_t* RecordArena::take() {
  if (!free_.empty()) {
    uint8_t* b = free_.back();
    free_.pop_back();
    return b;
  }
  if (put_ == end_) {
    chunks_.emplace_back(kChunkBytes);
    put_ = static_cast<uint8_t*>(chunks_.back().data());
    end_ = put_ + kChunkBytes;
    LOOM_CHECK(block_of(put_) == put_, "run-ahead records", "a chunk not aligned to its blocks");
  }
  uint8_t* b = put_;
  put_ += kBlockBytes;
  return b;
}

void RecordArena::give_back(const uint8_t* inside) { free_.push_back(block_of(inside)); }

void WarpRecordStream::open(RecordArena& arena) {
  put_ = arena.take();
  cursor_ = put_;
  last_ = last_rows_ = nullptr;
  appended_ = 0;
  step_ = 0;
}

void WarpRecordStream::close(RecordArena& arena) {
  // After a full replay the reader is in the writer's block, the only one left.
  if (put_ && block_of(cursor_) == block_of(put_)) arena.give_back(put_);
  cursor_ = put_ = last_ = last_rows_ = nullptr;
}

// Whether `bytes` fit in the writer's block, with room left at its end for the jump.
bool WarpRecordStream::fits(size_t bytes) const {
  return put_ + bytes + kJumpBytes <= block_of(put_) + RecordArena::kBlockBytes;
}

// Room for `bytes`, keeping room at each block's end for the jump.
uint8_t* WarpRecordStream::reserve(RecordArena& arena, size_t bytes) {
  if (!fits(bytes)) {
    uint8_t* next = arena.take();
    Record jump;
    jump.flags = kJump;
    std::memcpy(put_, &jump, sizeof jump);
    std::memcpy(put_ + sizeof jump, &next, sizeof next);
    if (last_) or_flags(last_, kJumpAfter);
    put_ = next;
    last_rows_ = nullptr;  // its block may be read through, and taken again, before the next is
  }
  uint8_t* p = put_;
  put_ += bytes;
  appended_ += bytes;
  return p;
}

void WarpRecordStream::append(RecordArena& arena, const ExecutedInstruction& x) {
  // Replay's defaults are an instruction that reported no memory; anything else is kept.
  const bool memory = x.n_segments || x.lane_bytes || x.span_end || x.space != x.inst->space;
  // A plain instruction right after the last record's instructions joins it, unless the
  // reader has already gone past that record.
  if (!memory && !x.warp_done && x.active_mask == ~0u && last_ && !drained()) {
    Record l;
    std::memcpy(&l, last_, sizeof l);
    if (!(l.flags & kDone) && l.pc + l.more + 1u == x.pc && l.more < 255) {
      ++l.more;
      std::memcpy(last_ + offsetof(Record, more), &l.more, sizeof l.more);
      return;
    }
  }
  Record r;
  r.pc = static_cast<uint16_t>(x.pc);  // can_run_ahead: fewer than 65,536 instructions
  if (x.warp_done) r.flags |= kDone;
  size_t bytes = sizeof r;
  if (x.active_mask != ~0u) {
    r.flags |= kPartialMask;
    bytes += sizeof x.active_mask;
  }
  // Rows are tested for a stride once: the compact form and the general one both use it.
  const bool strided_rows = memory && !x.lane_bytes && rows_strided(x);
  CompactRows rows;
  RowsDelta delta = 0;
  if (strided_rows && compact_rows(x, rows)) {
    r.n_segments = static_cast<uint8_t>(x.n_segments);
    // Rows like the last CompactRows take a delta from them, where those are in the writer's
    // block (alive, as the reader has not gone past it) and this record fits there too.
    if (last_rows_ && fits(bytes + sizeof delta) && rows_delta(rows, last_rows_, delta)) {
      r.flags |= kRowsDelta;
      bytes += sizeof delta;
    } else {
      r.flags |= kCompactRows;
      bytes += sizeof rows;
    }
  } else if (memory) {
    r.flags |= kMemory;
    bytes += sizeof(MemoryHeader);
    if (x.span_end) {
      r.flags |= kSpan;
      bytes += 16;
    }
    if (x.lane_bytes) {
      const bool strided = lanes_strided(x);
      if (strided) r.flags |= kStridedLanes;
      bytes += strided ? 8 : 32 * sizeof(uint32_t);
    } else {
      if (strided_rows) r.flags |= kStridedRows;
      r.n_segments = static_cast<uint8_t>(x.n_segments);
      bytes += strided_rows ? sizeof(MemorySegment) + 8 : x.n_segments * sizeof(MemorySegment);
    }
  }
  uint8_t* p = reserve(arena, bytes);
  if (last_) {  // the record before learns what follows it
    std::memcpy(last_ + offsetof(Record, next_pc), &r.pc, sizeof r.pc);
    or_flags(last_, kHasNext);
  }
  last_ = p;
  std::memcpy(p, &r, sizeof r);
  p += sizeof r;
  if (r.flags & kPartialMask) {
    std::memcpy(p, &x.active_mask, sizeof x.active_mask);
    p += sizeof x.active_mask;
  }
  if (r.flags & kCompactRows) {
    std::memcpy(p, &rows, sizeof rows);
    last_rows_ = p;
  }
  if (r.flags & kRowsDelta) std::memcpy(p, &delta, sizeof delta);
  if (!(r.flags & kMemory)) return;
  MemoryHeader h;
  h.lane_bytes = x.lane_bytes;
  h.space = x.space;
  std::memcpy(p, &h, sizeof h);
  p += sizeof h;
  if (r.flags & kSpan) {
    std::memcpy(p, &x.span_begin, 8);
    std::memcpy(p + 8, &x.span_end, 8);
    p += 16;
  }
  if (r.flags & kStridedLanes) {
    const uint32_t first_and_stride[2] = {x.lane_address[0], x.lane_address[1] - x.lane_address[0]};
    std::memcpy(p, first_and_stride, 8);
  } else if (x.lane_bytes) {
    std::memcpy(p, x.lane_address.data(), 32 * sizeof(uint32_t));
  } else if (r.flags & kStridedRows) {
    const uint64_t stride = x.segments[1].address - x.segments[0].address;
    std::memcpy(p, &x.segments[0], sizeof(MemorySegment));
    std::memcpy(p + sizeof(MemorySegment), &stride, 8);
  } else {
    std::memcpy(p, x.segments.data(), x.n_segments * sizeof(MemorySegment));
  }
}

const uint8_t* WarpRecordStream::follow(RecordArena& arena, const uint8_t* p) {
  while (flags_at(p) & kJump) {
    const uint8_t* next;
    std::memcpy(&next, p + sizeof(Record), sizeof next);
    arena.give_back(p);  // read through
    p = next;
  }
  return p;
}

uint32_t WarpRecordStream::next_pc() const {
  uint16_t pc;
  std::memcpy(&pc, cursor_, sizeof pc);
  return pc + step_;
}

void WarpRecordStream::replay(RecordArena& arena, const std::vector<StaticInstruction>& statics,
                              ExecutedInstruction& out) {
  LOOM_CHECK(!drained(), "run-ahead records", "replay of a warp with nothing recorded");
  Record r;
  std::memcpy(&r, cursor_, sizeof r);
  const uint8_t* p = cursor_ + sizeof r;
  const uint32_t pc = r.pc + step_;
  out.inst = &statics[pc];
  out.pc = pc;
  out.active_mask = ~0u;
  out.n_segments = 0;
  out.lane_bytes = 0;
  out.span_begin = out.span_end = 0;
  out.space = out.inst->space;
  out.warp_done = false;
  out.warp_at_barrier = false;
  // Past the record, once its last instruction is replayed (`end`: where its fields end).
  // Nothing past the record is read unless a jump is known to follow: the next record may
  // not be in the host's caches yet, and its pc is already at hand.
  auto move_past = [&](const uint8_t* end) {
    step_ = 0;
    cursor_ = r.flags & kJumpAfter ? follow(arena, end) : end;
    out.warp_done = (r.flags & kDone) != 0;
    out.next = !out.warp_done && (r.flags & kHasNext) ? &statics[r.next_pc] : nullptr;
  };
  if (step_ > 0) {  // one of the plain instructions after the record's first
    if (step_ < r.more) {
      ++step_;
      out.next = &statics[pc + 1];
    } else {
      move_past(cursor_ + fields_bytes_);
    }
    return;
  }
  if (r.flags & kPartialMask) {
    std::memcpy(&out.active_mask, p, sizeof out.active_mask);
    p += sizeof out.active_mask;
  }
  if (r.flags & (kCompactRows | kRowsDelta)) {
    if (r.flags & kCompactRows) {  // the base of the deltas after it
      std::memcpy(&last_rows_read_, p, sizeof last_rows_read_);
      p += sizeof last_rows_read_;
    }
    const CompactRows& rows = last_rows_read_;
    uint64_t address = rows.address;
    if (r.flags & kRowsDelta) {
      RowsDelta delta;
      std::memcpy(&delta, p, sizeof delta);
      address += static_cast<uint64_t>(int64_t{delta});
      p += sizeof delta;
    }
    out.space = rows.space;
    expand_rows(out, r.n_segments, address, static_cast<uint64_t>(int64_t{rows.stride}), rows.bytes, rows.lane);
  }
  if (r.flags & kMemory) {
    MemoryHeader h;
    std::memcpy(&h, p, sizeof h);
    p += sizeof h;
    out.lane_bytes = h.lane_bytes;
    out.space = h.space;
    if (r.flags & kSpan) {
      std::memcpy(&out.span_begin, p, 8);
      std::memcpy(&out.span_end, p + 8, 8);
      p += 16;
    }
    if (r.flags & kStridedLanes) {
      uint32_t first_and_stride[2];
      std::memcpy(first_and_stride, p, 8);
      for (uint32_t l = 0; l < 32; ++l) out.lane_address[l] = first_and_stride[0] + l * first_and_stride[1];
      p += 8;
    } else if (h.lane_bytes) {
      std::memcpy(out.lane_address.data(), p, 32 * sizeof(uint32_t));
      p += 32 * sizeof(uint32_t);
    } else if (r.flags & kStridedRows) {
      MemorySegment first;
      uint64_t stride;
      std::memcpy(&first, p, sizeof first);
      std::memcpy(&stride, p + sizeof first, 8);
      expand_rows(out, r.n_segments, first.address, stride, first.bytes, first.lane);
      p += sizeof first + 8;
    } else {
      out.n_segments = r.n_segments;
      std::memcpy(out.segments.data(), p, r.n_segments * sizeof(MemorySegment));
      p += r.n_segments * sizeof(MemorySegment);
    }
  }
  if (r.more > 0) {  // plain instructions follow in this record
    step_ = 1;
    fields_bytes_ = static_cast<uint16_t>(p - cursor_);  // a record is smaller than its block
    out.next = &statics[pc + 1];
    return;
  }
  move_past(p);
}

}  // namespace loom::simt
