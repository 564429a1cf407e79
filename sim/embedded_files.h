// Files compiled into the binary (see scripts/embed_files.cmake): the default
// architecture, workload and energy table, so `loom run` works with no files at hand.
#pragma once

#include <string>
#include <string_view>

namespace loom {
// Empty when no file of that name was embedded.
std::string_view embedded_file(const std::string& name);
}  // namespace loom
