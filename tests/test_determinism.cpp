// Determinism, end to end: every command that writes results, run twice and with 1 and 2
// threads (or worker processes), writes the same files byte for byte. Every file of the
// output directory is compared, not only report.json, so a timestamp, a path, an unordered
// container or a thread-dependent merge order anywhere in a report fails here.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/cli_harness.h"

namespace fs = std::filesystem;
using namespace loom_test;

namespace {

const std::string kSrc = LOOM_SOURCE_DIR;

// Relative path -> contents of every regular file under `root`.
std::map<std::string, std::string> files_under(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) out[fs::relative(entry.path(), root).string()] = read_file(entry.path());
  }
  return out;
}

// Runs `args` once per output directory (the args' "{out}" replaced by it) and requires
// every directory to hold the same files with the same bytes as the first.
void check_same_outputs(const TempDir& dir, const std::vector<std::vector<std::string>>& runs) {
  std::map<std::string, std::string> first;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string out = dir / ("out" + std::to_string(i));
    std::vector<std::string> args = runs[i];
    for (std::string& a : args)
      if (a == "{out}") a = out;
    const RunResult r = run_loom(dir, args);
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const std::map<std::string, std::string> files = files_under(out);
    REQUIRE(!files.empty());
    if (i == 0) {
      first = files;
      continue;
    }
    CAPTURE(i);
    REQUIRE(files.size() == first.size());
    for (const auto& file : files) {
      const std::string& name = file.first;  // not a binding: clang 14 cannot capture one
      const std::string& bytes = file.second;
      CAPTURE(name);
      REQUIRE(first.count(name) == 1);
      CHECK(bytes == first.at(name));
    }
  }
}

std::vector<std::string> with_threads(std::vector<std::string> args, const char* flag, const char* n) {
  args.push_back(flag);
  args.push_back(n);
  return args;
}

}  // namespace

TEST_CASE("determinism: loom run on a systolic array, twice") {
  TempDir dir;
  const std::vector<std::string> run = {"run", "--arch", kSrc + "/configs/systolic_32x32_ws.json", "--workload",
                                        kSrc + "/workloads/networks/alexnet.json", "--out", "{out}", "-q"};
  check_same_outputs(dir, {run, run});
}

TEST_CASE("determinism: loom run on a hierarchy (mapper search), twice and with 1 and 2 threads") {
  TempDir dir;
  const std::vector<std::string> run = {"run", "--arch", kSrc + "/configs/eyeriss_like_rs.json", "--workload",
                                        kSrc + "/workloads/networks/lenet5.json", "--out", "{out}", "-q"};
  check_same_outputs(dir, {with_threads(run, "-j", "1"), with_threads(run, "-j", "2"), with_threads(run, "-j", "2")});
}

TEST_CASE("determinism: loom map, with 1 and 2 threads") {
  TempDir dir;
  const std::vector<std::string> map = {"map", "--arch", kSrc + "/configs/eyeriss_like_rs.json", "--workload",
                                        kSrc + "/workloads/networks/lenet5.json", "--layer", "C3", "--out", "{out}"};
  check_same_outputs(dir, {with_threads(map, "-j", "1"), with_threads(map, "-j", "2")});
}

TEST_CASE("determinism: loom sweep, twice and with 1 and 2 worker processes") {
  TempDir dir;
  // 3 x 2 x 2 = 12 systolic points over LeNet-5 and AlexNet; random strategy so the seed is used.
  write_file(dir.path() / "spec.json",
             R"({"schema": "loom-sweep/1", "name": "determinism", "base": ")" + kSrc +
                 R"(/configs/systolic_32x32_ws.json", "parameters": {"array.rows": [8, 16, 32], "array.cols": [8, 32],
                 "array.dataflow": ["ws", "os"]}, "workloads": [")" + kSrc + R"(/workloads/networks/lenet5.json", ")" +
                 kSrc + R"(/workloads/networks/alexnet.json"], "objectives": ["latency", "energy"],
                 "strategy": {"kind": "random", "samples": 8, "seed": 7}})");
  const std::vector<std::string> sweep = {"sweep", dir / "spec.json", "--out", "{out}", "-q"};
  check_same_outputs(dir, {with_threads(sweep, "-j", "1"), with_threads(sweep, "-j", "2"),
                           with_threads(sweep, "-j", "2")});
}

TEST_CASE("determinism: loom gpu (SIMT cycle model), twice") {
  TempDir dir;
  const std::vector<std::string> gpu = {"gpu",    "--arch", kSrc + "/configs/t4.json", "--kernel", "wmma_gemm", "--size",
                                        "M=64,N=32,K=48", "--out", "{out}", "-q"};
  check_same_outputs(dir, {gpu, gpu});
}

TEST_CASE("determinism: loom train on a DGX-1, twice") {
  TempDir dir;
  const std::vector<std::string> train = {"train", "--system", kSrc + "/configs/systems/dgx1_v100.json", "--batch",
                                          "256", "--parallel", "pipeline", "--out", "{out}", "-q"};
  check_same_outputs(dir, {train, train});
}
