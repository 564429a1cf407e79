// PTX text -> PtxModule (syntax with resolved register names). Every malformed construct is
// an InputError naming the source, "line N" and what was expected there.
#pragma once

#include <string>
#include <string_view>

#include "arch/simt/ptx/ptx_syntax.h"

namespace loom::simt {

PtxModule parse_ptx(std::string_view text, const std::string& source_name);
PtxModule load_ptx_file(const std::string& path);

}  // namespace loom::simt
