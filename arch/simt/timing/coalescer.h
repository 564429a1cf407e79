// The global-memory coalescer: maps the byte segments an executed ld/st touched onto the
// cache's sectors, grouped by line: one request per distinct line, carrying the mask of its
// sectors. 32 consecutive floats = 1 line, 4 sectors; 32 floats 32 bytes apart = 8 lines,
// 32 sectors; 128 bytes apart = 32 lines, 32 sectors. Requests keep the order in which
// their lines first appear (deterministic).
#pragma once

#include <array>
#include <cstdint>

#include "arch/simt/warp_instruction.h"

namespace loom::simt {

struct LineRequest {
  uint64_t line = 0;         // address / line_bytes
  uint32_t sector_mask = 0;  // bit s: sector s of the line
};

struct CoalescedAccess {
  static constexpr int kMaxLines = 512;
  int lines = 0;
  int sectors = 0;
  std::array<LineRequest, kMaxLines> requests{};
};

// line_bytes and sector_bytes are powers of two, as the config reader requires (anything
// else is an internal error).
void coalesce(const ExecutedInstruction& executed, int line_bytes, int sector_bytes, CoalescedAccess& out);

}  // namespace loom::simt
