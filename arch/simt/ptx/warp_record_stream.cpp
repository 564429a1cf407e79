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
  // Of a plain record (full mask, no memory, not the last): how many instructions at the
  // pcs after pc it also stands for. A straight run of arithmetic takes one record.
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
};

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
  block_end_ = put_ + RecordArena::kBlockBytes;
  cursor_ = put_;
  last_ = nullptr;
  appended_ = 0;
  step_ = 0;
}

void WarpRecordStream::close(RecordArena& arena) {
  // After a full replay the reader is in the writer's block, the only one left.
  if (put_ && block_of(cursor_) == block_of(put_)) arena.give_back(put_);
  cursor_ = put_ = block_end_ = last_ = nullptr;
}

// Room for `bytes`, keeping room at each block's end for the jump.
uint8_t* WarpRecordStream::reserve(RecordArena& arena, size_t bytes) {
  if (put_ + bytes + kJumpBytes > block_end_) {
    uint8_t* next = arena.take();
    Record jump;
    jump.flags = kJump;
    std::memcpy(put_, &jump, sizeof jump);
    std::memcpy(put_ + sizeof jump, &next, sizeof next);
    if (last_) or_flags(last_, kJumpAfter);
    put_ = next;
    block_end_ = next + RecordArena::kBlockBytes;
  }
  uint8_t* p = put_;
  put_ += bytes;
  appended_ += bytes;
  return p;
}

void WarpRecordStream::append(RecordArena& arena, const ExecutedInstruction& x) {
  // Replay's defaults are an instruction that reported no memory; anything else is kept.
  const bool memory = x.n_segments || x.lane_bytes || x.span_end || x.space != x.inst->space;
  // A plain instruction right after the last record's joins it, unless the reader has
  // already gone past that record.
  if (!memory && !x.warp_done && x.active_mask == ~0u && last_ && !drained()) {
    Record l;
    std::memcpy(&l, last_, sizeof l);
    if (!(l.flags & (kMemory | kPartialMask | kDone)) && l.pc + l.more + 1u == x.pc && l.more < 255) {
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
  if (memory) {
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
      const bool strided = rows_strided(x);
      if (strided) r.flags |= kStridedRows;
      r.n_segments = static_cast<uint8_t>(x.n_segments);
      bytes += strided ? sizeof(MemorySegment) + 8 : x.n_segments * sizeof(MemorySegment);
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
  if (!memory) return;
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
  if (step_ < r.more) {  // within a plain run: the next instruction is the one after
    ++step_;
    out.next = &statics[pc + 1];
    return;
  }
  step_ = 0;
  if (r.flags & kPartialMask) {
    std::memcpy(&out.active_mask, p, sizeof out.active_mask);
    p += sizeof out.active_mask;
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
      out.n_segments = r.n_segments;
      for (int i = 0; i < r.n_segments; ++i)
        out.segments[static_cast<size_t>(i)] = {first.address + stride * static_cast<uint64_t>(i), first.bytes,
                                                static_cast<uint8_t>(first.lane + i)};
      p += sizeof first + 8;
    } else {
      out.n_segments = r.n_segments;
      std::memcpy(out.segments.data(), p, r.n_segments * sizeof(MemorySegment));
      p += r.n_segments * sizeof(MemorySegment);
    }
  }
  // Nothing past the record is read unless a jump is known to follow: the next record may
  // not be in the host's caches yet, and its pc is already at hand.
  cursor_ = r.flags & kJumpAfter ? follow(arena, p) : p;
  out.warp_done = (r.flags & kDone) != 0;
  out.next = !out.warp_done && (r.flags & kHasNext) ? &statics[r.next_pc] : nullptr;
}

}  // namespace loom::simt
