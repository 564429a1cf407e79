// What a warp's executed instructions reported (ExecutedInstruction), recorded in order
// when the instructions run ahead of their issue (cta_run_ahead.h), and read back one per
// issue. Each warp has a stream of 2 KiB blocks taken from a shared RecordArena; a block
// goes back to the arena as soon as the reader has moved past it, so a run keeps only what
// is recorded and not yet issued.
//
// A record is 8 bytes (instruction, the next instruction's pc once known, flags), followed
// by the active mask unless every lane was active, and, for an instruction that reported
// memory, a 4-byte header (lane bytes, space), its span when reported (16 bytes), and its
// segments or lane addresses. Instructions are numbered in 16 bits (can_run_ahead). Plain
// instructions (every lane active, no memory) at consecutive pcs join the record before
// them, up to 255 of them: the WMMA GEMM's address arithmetic after each of its loads.
// Segments at a constant stride (a wmma.load's rows) are kept as the first and the stride:
// 16 bytes where the stride fits 32 bits and there is no span or lane address (the usual
// wmma.load, with no header: CompactRows), else 24, rather than 16 per row; and rows like
// the last CompactRows in the writer's block, moved by under 2 GiB (the next k step's, the
// other matrix's), as that move in 4 bytes. Lane addresses at a constant stride (a warp's
// consecutive words, a broadcast) are kept as the first and the stride (8 bytes rather
// than 128). The host's cost of a replayed instruction is mostly the lines its record
// spans, and a launch's records are first-touched memory, whose huge pages this VM clears
// at about 5 ms each (docs/performance.md, forty-fourth and forty-fifth rounds): a WMMA
// GEMM warp's 816 instructions take 1,868 bytes, one block.
// Replay gives back every field the timing model reads, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arch/simt/warp_instruction.h"
#include "sim/huge_page_buffer.h"

namespace loom::simt {

class RecordArena {
 public:
  static constexpr size_t kBlockBytes = 2048;
  uint8_t* take();
  // The block holding `inside` (any address in it) is free again.
  void give_back(const uint8_t* inside);
  // Bytes the arena holds from the host (for tests and limits).
  size_t reserved_bytes() const { return chunks_.size() * kChunkBytes; }

 private:
  static constexpr size_t kChunkBytes = size_t{32} << 20;  // huge pages; 4 KiB-aligned blocks
  std::vector<HugePageBuffer> chunks_;
  std::vector<uint8_t*> free_;  // last freed first: likely still in the host's caches
  uint8_t* put_ = nullptr;
  uint8_t* end_ = nullptr;
};

class WarpRecordStream {
 public:
  // Rows at a stride as a wmma.load reports them (no lane addresses, no span), with stride
  // and row bytes small enough: 16 bytes after the record where the general form takes 28
  // (header, first segment, 64-bit stride). Rows like the last of these but elsewhere
  // (the next k step's, the other matrix's at the same row stride) take 4 bytes: the move.
  struct CompactRows {
    uint64_t address = 0;  // the first row's
    int32_t stride = 0;    // row i at address + i * stride (64-bit wrap-around, as recorded)
    uint16_t bytes = 0;
    uint8_t lane = 0;  // the first row's
    MemorySpace space = MemorySpace::none;
  };
  static_assert(sizeof(CompactRows) == 16);

  // An empty stream with its first block.
  void open(RecordArena& arena);
  // Returns the stream's blocks to the arena (the stream is empty afterwards).
  void close(RecordArena& arena);
  // Records what `x` reported (x.warp_done included).
  void append(RecordArena& arena, const ExecutedInstruction& x);
  // Nothing recorded that has not been replayed.
  bool drained() const { return cursor_ == put_; }
  // After appending to a drained stream: moves the reader past a jump written since.
  void settle(RecordArena& arena) {
    if (!drained()) cursor_ = follow(arena, cursor_);
  }
  // The next record's instruction (requires !drained()).
  uint32_t next_pc() const;
  // Fills `out` from the next record and moves past it: every field the functional model
  // fills except `next`, which is the instruction after it when it is recorded (nullptr when
  // the warp is done, and also when it is not recorded yet: then drained() is true).
  void replay(RecordArena& arena, const std::vector<StaticInstruction>& statics, ExecutedInstruction& out);
  // Bytes of records appended since open() (not the jumps between blocks), modulo 2^32:
  // a difference of two readings is the bytes appended between them (while under 4 GiB).
  uint32_t appended_bytes() const { return appended_; }
  // The host line the next replay reads first, for prefetch hints.
  const void* cursor() const { return cursor_; }

 private:
  bool fits(size_t bytes) const;
  uint8_t* reserve(RecordArena& arena, size_t bytes);
  const uint8_t* follow(RecordArena& arena, const uint8_t* p);

  // 56 bytes, so that a run-ahead warp (the stream and a flag) takes one host line. The
  // writer's block ends at the next block boundary after put_ (put_ stops short of it).
  const uint8_t* cursor_ = nullptr;  // the next record to replay
  uint8_t* put_ = nullptr;           // where the next record goes
  uint8_t* last_ = nullptr;          // the last record appended, which learns its successor's pc
  uint8_t* last_rows_ = nullptr;     // the last CompactRows appended, while in the writer's block
  CompactRows last_rows_read_;       // the last CompactRows replayed, for kRowsDelta
  uint32_t appended_ = 0;
  uint16_t fields_bytes_ = 0;  // the cursor's record's bytes up to its fields' end, once step_ > 0
  uint8_t step_ = 0;           // instructions of the cursor's record already replayed
};
static_assert(sizeof(WarpRecordStream) == 56);

}  // namespace loom::simt
