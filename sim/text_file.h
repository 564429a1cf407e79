// Small text helpers shared by the input loaders.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace loom {

// The whole file; throws InputError naming the file when it cannot be read.
std::string read_text_file(const std::string& path);

std::string trim(std::string_view s);
// "a, b,,c" -> {"a", "b", "", "c"}: every field between separators, trimmed; empty fields
// are kept (callers decide whether they are errors), and "" gives one empty field.
std::vector<std::string> split_trimmed(std::string_view s, char separator);
std::string to_lower(std::string s);

// "a, b, c" from the `name` member of each entry of a catalog: the "one of ..." part of an
// error about an unknown name.
template <class Catalog>
std::string names_of(const Catalog& catalog) {
  std::string list;
  for (const auto& entry : catalog) list += (list.empty() ? "" : ", ") + entry.name;
  return list;
}

// 1234567 -> "1,234,567": counts in messages and tables, readable at a glance.
std::string with_commas(int64_t value);

// Writes `content` to `path` atomically (a temporary file in the same directory, then a
// rename), so a reader never sees a half-written file: the old file or the new one. SIGINT
// and SIGTERM are held off meanwhile (sim/interrupt_guard.h). InputError (field --out) when
// it cannot.
void write_file_atomically(const std::string& path, const std::string& content);
// The same, with the content streamed by `write` (files too large to hold in memory).
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Writes all of `data` to the descriptor, retrying short writes and EINTR; false on error.
// For pipes and append-only logs, where one record must go out whole.
bool write_all(int fd, std::string_view data);

// Creates `out_dir` (InputError naming --out when it cannot).
void make_output_dir(const std::string& out_dir);

}  // namespace loom
