// Warp-wide data exchange: shfl.sync, vote.sync and activemask. Each reads every lane's
// source before writing any destination, since the destination may be the source.
#include "arch/simt/ptx/exec_context.h"
#include "arch/simt/ptx/exec_handlers.h"

namespace loom::simt {

namespace {

// PTX ISA, shfl.sync: c packs the clamp value (bits 0-4) and the segment mask (bits 8-12).
void shuffle(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  const uint64_t *a = c.src(i.src[0]), *b = c.src(i.src[1]), *cc = c.src(i.src[2]);
  uint64_t value[32];
  for (int l = 0; l < 32; ++l) value[l] = a[l];
  uint64_t* d = c.dst(i.dst[0]);
  uint64_t* p = (i.flags & DecodedInstruction::kFlagSecondDst) ? c.dst(i.dst[1]) : nullptr;
  const auto mode = static_cast<ShuffleMode>(i.op);
  for_each_lane(mask, [&](int lane) {
    const int bval = static_cast<int>(b[lane] & 31), cval = static_cast<int>(cc[lane] & 31);
    const int segmask = static_cast<int>((cc[lane] >> 8) & 31);
    const int max_lane = (lane & segmask) | (cval & ~segmask), min_lane = lane & segmask;
    int j = lane;
    bool in_range = false;
    switch (mode) {
      case ShuffleMode::up: j = lane - bval; in_range = j >= max_lane; break;
      case ShuffleMode::down: j = lane + bval; in_range = j <= max_lane; break;
      case ShuffleMode::bfly: j = lane ^ bval; in_range = j <= max_lane; break;
      case ShuffleMode::idx: j = min_lane | (bval & ~segmask); in_range = j <= max_lane; break;
    }
    if (!in_range) j = lane;
    d[lane] = value[j] & 0xffffffffu;
    if (p) p[lane] = in_range ? 1 : 0;
  });
}

void vote(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  const uint64_t* a = c.src(i.src[0]);
  const bool negate = i.flags & DecodedInstruction::kFlagNegateC;
  uint32_t ballot = 0;
  for_each_lane(mask, [&](int l) {
    if (((a[l] & 1) != 0) != negate) ballot |= 1u << l;
  });
  uint64_t result = 0;
  switch (static_cast<VoteMode>(i.op)) {
    case VoteMode::all: result = ballot == mask; break;
    case VoteMode::any: result = ballot != 0; break;
    case VoteMode::uni: result = ballot == 0 || ballot == mask; break;
    case VoteMode::ballot: result = ballot; break;
  }
  uint64_t* d = c.dst(i.dst[0]);
  for_each_lane(mask, [&](int l) { d[l] = result; });
}

void activemask(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  for_each_lane(mask, [&](int l) { d[l] = mask; });
}

}  // namespace

ExecFn shuffle_handler() { return &shuffle; }
ExecFn vote_handler() { return &vote; }
ExecFn activemask_handler() { return &activemask; }

}  // namespace loom::simt
