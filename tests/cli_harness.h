// The `loom` executable as a child process, for the end-to-end tests: a scratch directory,
// file helpers, and run_loom() capturing the exit status, stdout and stderr.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace loom_test {

namespace fs = std::filesystem;

// A fresh, uniquely named directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& p);
void write_file(const fs::path& p, const std::string& content);
std::string sh_quote(const std::string& s);  // single-quotes a word for /bin/sh

struct RunResult {
  int code = -1;  // exit status, or -1 if the process did not exit normally
  std::string out, err;
};

// Runs `loom <args...>` with stdin from /dev/null and stdout/stderr captured in `dir`.
RunResult run_loom(const TempDir& dir, const std::vector<std::string>& args);

inline bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace loom_test
