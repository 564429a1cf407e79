// Reading back an append-only JSON-lines log (a sweep's points.jsonl, a run's checkpoint):
// one record per line, each appended whole as its work finishes, so a kill can leave at most
// a cut-off last line. The reader keeps the lines its caller accepts, up to the first it
// does not; the caller then decides: a rejected last line is dropped (and its work done
// again), a rejected line with more after it means the file is corrupt.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "sim/json_reader.h"

namespace loom {

// One line as a JSON object; nullopt when it is malformed or not an object.
std::optional<Json> parse_json_line(std::string_view line);

struct AppendLogRead {
  uint64_t good_bytes = 0;     // the accepted lines, newlines included: where appending resumes
  uint64_t file_bytes = 0;
  int64_t rejected_line = 0;   // 1-based; 0 when every line was accepted
  bool rejected_last = false;  // the rejected line ends the file (cut off by a kill, or not)

  bool corrupt() const { return rejected_line != 0 && !rejected_last; }
  // The verdict every log's reader gives: InputError naming `path` and the line when the file
  // is corrupt (`expected`: what a line should be, and what to do about it); otherwise the
  // warning for a dropped cut-off last line ("" when none), where `redone` says what will be
  // done again.
  std::string check(const std::string& path, const std::string& expected, const std::string& redone) const;
};

// Streams the file line by line (it may be larger than memory should hold) and calls
// accept(line_number, offset, line) for each line ending in a newline, in order, until
// accept returns false; a line without its newline (cut off mid-write) is rejected without
// asking. InputError naming the file when it cannot be read ("a readable <what>").
AppendLogRead read_append_log(const std::string& path, const std::string& what,
                              const std::function<bool(int64_t line, uint64_t offset, const std::string& text)>& accept);

}  // namespace loom
