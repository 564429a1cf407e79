// PTX special registers (%tid.x, %laneid, ...): read-only per-thread values that the
// functional model fills in when a warp starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace loom::simt {

enum class SpecialRegister : uint8_t {
  tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z,
  ctaid_x, ctaid_y, ctaid_z, nctaid_x, nctaid_y, nctaid_z,
  laneid, warpid, nwarpid, smid, nsmid, gridid,
  lanemask_eq, lanemask_le, lanemask_lt, lanemask_ge, lanemask_gt,
  clock, clock64, globaltimer,
  count
};

std::optional<SpecialRegister> parse_special_register(std::string_view name);  // "%tid.x"
const char* special_register_name(SpecialRegister reg);
// %clock, %clock64 and %globaltimer change while the warp runs; the rest are fixed at start.
inline bool is_time_register(SpecialRegister r) {
  return r == SpecialRegister::clock || r == SpecialRegister::clock64 || r == SpecialRegister::globaltimer;
}
inline bool is_64bit_special(SpecialRegister r) {
  return r == SpecialRegister::clock64 || r == SpecialRegister::globaltimer || r == SpecialRegister::gridid;
}

}  // namespace loom::simt
