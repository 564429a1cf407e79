#include "arch/simt/ptx/special_register.h"

#include <array>

namespace loom::simt {

namespace {
constexpr std::array<const char*, static_cast<size_t>(SpecialRegister::count)> kNames{
    "%tid.x",         "%tid.y",         "%tid.z",         "%ntid.x",     "%ntid.y",   "%ntid.z",
    "%ctaid.x",       "%ctaid.y",       "%ctaid.z",       "%nctaid.x",   "%nctaid.y", "%nctaid.z",
    "%laneid",        "%warpid",        "%nwarpid",       "%smid",       "%nsmid",    "%gridid",
    "%lanemask_eq",   "%lanemask_le",   "%lanemask_lt",   "%lanemask_ge", "%lanemask_gt",
    "%clock",         "%clock64",       "%globaltimer"};
}  // namespace

std::optional<SpecialRegister> parse_special_register(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (name == kNames[i]) return static_cast<SpecialRegister>(i);
  return std::nullopt;
}

const char* special_register_name(SpecialRegister reg) { return kNames[static_cast<size_t>(reg)]; }

}  // namespace loom::simt
