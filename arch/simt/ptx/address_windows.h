// Where each state space lives in loom's 64-bit generic address space. Global allocations
// start well above zero (so a null or small integer used as a pointer faults); shared and
// local memory appear in two high windows, as cvta maps them on real GPUs.
#pragma once

#include <cstdint>

namespace loom::simt {

inline constexpr uint64_t kGlobalBase = 0x0000001000000000ull;  // first device allocation
inline constexpr uint64_t kGlobalLimit = 0x00007d0000000000ull;
inline constexpr uint64_t kLocalWindow = 0x00007e0000000000ull;   // generic = window + local offset
inline constexpr uint64_t kSharedWindow = 0x00007f0000000000ull;  // generic = window + shared offset
inline constexpr uint64_t kWindowBytes = 0x0000000100000000ull;   // 4 GiB each

inline bool in_shared_window(uint64_t generic) { return generic - kSharedWindow < kWindowBytes; }
inline bool in_local_window(uint64_t generic) { return generic - kLocalWindow < kWindowBytes; }

}  // namespace loom::simt
