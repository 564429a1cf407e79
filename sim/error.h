// Typed errors: user errors (bad input, exit 2) versus broken invariants (bugs, abort).
// Every InputError names the file, the field (or line) and what was expected, so the
// CLI can print one line that tells the user exactly what to fix.
#pragma once

#include <stdexcept>
#include <string>

namespace loom {

class InputError : public std::runtime_error {
 public:
  // file: path of the offending input ("" when none); field: JSON path, CSV line or
  // option name; expected: what a valid value looks like, stated as a rule.
  InputError(std::string file, std::string field, std::string expected);

  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string file_, field_, expected_;
};

// A broken invariant inside loom: a bug, never the user's fault.
[[noreturn]] void internal_bug(const char* component, const std::string& what);

}  // namespace loom

#define LOOM_CHECK(cond, component, msg)                              \
  do {                                                                \
    if (!(cond)) ::loom::internal_bug(component, std::string(msg) +   \
                                                     " [" #cond "]"); \
  } while (0)
