#include "sim/error.h"

#include <cstdio>
#include <cstdlib>

namespace loom {

namespace {
std::string compose(const std::string& file, const std::string& field, const std::string& expected) {
  std::string msg;
  if (!file.empty()) msg += file + ": ";
  if (!field.empty()) msg += field + ": ";
  msg += expected;
  return msg;
}
}  // namespace

InputError::InputError(std::string file, std::string field, std::string expected)
    : std::runtime_error(compose(file, field, expected)),
      file_(std::move(file)),
      field_(std::move(field)),
      expected_(std::move(expected)) {}

void internal_bug(const char* component, const std::string& what) {
  std::fprintf(stderr, "loom: internal error in %s: %s (please report this bug)\n", component,
               what.c_str());
  std::abort();
}

}  // namespace loom
