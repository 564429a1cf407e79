#include "tests/cli_harness.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace loom_test {

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  path_ = fs::temp_directory_path() / ("loom_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(stamp) +
                                       "_" + std::to_string(counter++));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  REQUIRE_MESSAGE(out.good(), "cannot write " << p.string());
  out << content;
}

std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

RunResult run_loom(const TempDir& dir, const std::vector<std::string>& args) {
  static std::atomic<int> counter{0};
  const int n = counter++;
  const fs::path out_file = dir.path() / ("stdout_" + std::to_string(n) + ".txt");
  const fs::path err_file = dir.path() / ("stderr_" + std::to_string(n) + ".txt");
  std::string cmd = sh_quote(LOOM_BINARY);
  for (const std::string& a : args) cmd += " " + sh_quote(a);
  cmd += " </dev/null >" + sh_quote(out_file.string()) + " 2>" + sh_quote(err_file.string());
  const int status = std::system(cmd.c_str());
  RunResult r;
  REQUIRE_MESSAGE(status != -1, "std::system failed for " << cmd);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out_file);
  r.err = read_file(err_file);
  return r;
}

}  // namespace loom_test
