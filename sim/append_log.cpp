#include "sim/append_log.h"

#include <filesystem>
#include <fstream>

#include "sim/error.h"

namespace loom {

std::optional<Json> parse_json_line(std::string_view line) {
  try {
    Json j = Json::parse(line);
    if (j.is_object()) return j;
  } catch (const Json::parse_error&) {
  }
  return std::nullopt;
}

AppendLogRead read_append_log(const std::string& path, const std::string& what,
                              const std::function<bool(int64_t line, uint64_t offset, const std::string& text)>& accept) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "(file)", "a readable " + what);
  AppendLogRead r;
  r.file_bytes = std::filesystem::file_size(path);
  int64_t line_no = 0;
  std::string line;
  while (r.good_bytes < r.file_bytes && std::getline(in, line)) {
    ++line_no;
    const uint64_t next = r.good_bytes + line.size() + 1;
    const bool terminated = next <= r.file_bytes;
    if (!terminated || !accept(line_no, r.good_bytes, line)) {
      r.rejected_line = line_no;
      r.rejected_last = next >= r.file_bytes;
      break;
    }
    r.good_bytes = next;
  }
  return r;
}

std::string AppendLogRead::check(const std::string& path, const std::string& expected, const std::string& redone) const {
  if (corrupt()) throw InputError(path, "line " + std::to_string(rejected_line), expected);
  if (rejected_line == 0) return "";
  return path + ": line " + std::to_string(rejected_line) + " is incomplete (a run killed mid-write?); dropped, " + redone;
}

}  // namespace loom
