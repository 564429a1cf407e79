// Small text helpers shared by the input loaders.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace loom {

// The whole file; throws InputError naming the file when it cannot be read.
std::string read_text_file(const std::string& path);

std::string trim(std::string_view s);
std::string to_lower(std::string s);

// 1234567 -> "1,234,567": counts in messages and tables, readable at a glance.
std::string with_commas(int64_t value);

}  // namespace loom
