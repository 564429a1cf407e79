// Replays every seed (tests/fuzz/corpus/<target>/) and every input a fuzzer once crashed on
// (tests/fuzz/regressions/<target>/) through the parser entries the libFuzzer targets use:
// each must parse or fail with InputError, nothing else. So a fixed parser bug stays fixed in
// the ordinary test build, with no clang or libFuzzer at hand (scripts/fuzz finds new ones).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_entries.h"

namespace fs = std::filesystem;

namespace {

// From the source tree, so the test finds its inputs whatever directory it runs in.
const fs::path kFuzzDir = fs::path(LOOM_SOURCE_DIR) / "tests" / "fuzz";

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("fuzz: every target has an entry, seeds and a libFuzzer main") {
  std::set<std::string> registered;
  for (const loom::fuzz::FuzzTarget& t : loom::fuzz::fuzz_targets()) {
    INFO("target " << t.name);
    registered.insert(t.name);
    CHECK(fs::exists(kFuzzDir / ("fuzz_" + std::string(t.name) + ".cpp")));
    CHECK_FALSE(files_in(kFuzzDir / "corpus" / t.name).empty());
  }
  for (const auto& e : fs::directory_iterator(kFuzzDir)) {
    const std::string stem = e.path().stem().string();
    if (e.path().extension() != ".cpp" || stem == "fuzz_entries") continue;
    INFO(e.path().filename().string() << " has no entry in fuzz_targets() (tests/fuzz/fuzz_entries.cpp)");
    CHECK(registered.count(stem.substr(std::string("fuzz_").size())) == 1);
  }
}

TEST_CASE("fuzz: corpora and saved crashes replay with nothing but InputError") {
  int replayed = 0;
  for (const loom::fuzz::FuzzTarget& t : loom::fuzz::fuzz_targets()) {
    for (const char* kind : {"corpus", "regressions"}) {
      for (const fs::path& file : files_in(kFuzzDir / kind / t.name)) {
        const std::string bytes = bytes_of(file);
        INFO("fuzz_" << t.name << " on " << fs::relative(file, kFuzzDir.parent_path().parent_path()).string());
        CHECK_NOTHROW(t.entry(bytes));
        ++replayed;
      }
    }
  }
  CHECK(replayed > 0);
}
