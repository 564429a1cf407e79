// Small formatting helpers shared by the terminal tables and the report writers.
#pragma once

#include <cstdio>
#include <string>

namespace loom {

// printf into the end of `out`, however long the result (names in tables can be long).
template <typename... Args>
void append_format(std::string& out, const char* fmt, Args... args) {
  const int n = std::snprintf(nullptr, 0, fmt, args...);
  if (n <= 0) return;
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(n) + 1);
  std::snprintf(out.data() + at, static_cast<size_t>(n) + 1, fmt, args...);
  out.resize(at + static_cast<size_t>(n));
}

// RFC 4180: the field in quotes, its quotes doubled.
std::string csv_quoted(const std::string& s);

// A double with 10 significant digits ("%.10g"): CSV cells that read back exactly enough.
std::string format_number(double v);

}  // namespace loom
