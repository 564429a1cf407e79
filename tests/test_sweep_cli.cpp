// `loom sweep`, `loom merge`, `loom report` and `loom roofline` end to end: the result
// files and their determinism (-j 1 vs -j 2), sharding + merge equal to one run, resume
// after a cut-off line and after SIGINT, the Pareto front's correctness, and the bad-input
// contract (exit 2, one line naming file and field).
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/cli_harness.h"

namespace fs = std::filesystem;
using namespace loom_test;
using Json = nlohmann::json;

namespace {

std::string absolute(const std::string& p) { return fs::absolute(p).string(); }

// 4 x 3 x 2 = 24 systolic points over LeNet-5 and AlexNet, front re-simulated.
std::string small_spec(const std::string& extra = "") {
  return R"({"schema": "loom-sweep/1", "name": "small", "base": ")" + absolute("configs/systolic_32x32_ws.json") +
         R"(", "parameters": {"array.rows": [8, 16, 32, 64], "array.cols": [8, 32, 128], "array.dataflow": ["ws", "os"]},
         "workloads": [")" + absolute("workloads/networks/lenet5.json") + R"(", ")" +
         absolute("workloads/networks/alexnet.json") + R"("], "objectives": ["latency", "energy"],
         "strategy": {"kind": "grid"})" + extra + "}";
}

std::vector<Json> lines_of(const std::string& path) {
  std::vector<Json> out;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) out.push_back(Json::parse(line));
  return out;
}

bool dominates(const Json& a, const Json& b) {
  const double la = a["metrics"]["latency_s"], lb = b["metrics"]["latency_s"];
  const double ea = a["metrics"]["energy_j"], eb = b["metrics"]["energy_j"];
  return la <= lb && ea <= eb && (la < lb || ea < eb);
}

}  // namespace

TEST_CASE("loom sweep: results, front, determinism across -j, report") {
  TempDir dir;
  write_file(dir / "spec.json", small_spec());
  const RunResult one = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "j1", "-j", "1"});
  REQUIRE_MESSAGE(one.code == 0, one.err);
  const RunResult two = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "j2", "-j", "2"});
  REQUIRE_MESSAGE(two.code == 0, two.err);
  CHECK(contains(one.out, "sweep: 24 points"));
  for (const char* f : {"points.jsonl", "points.csv", "pareto.json", "pareto.csv", "sweep.json", "resim.jsonl"}) {
    CAPTURE(f);
    CHECK(read_file(dir / (std::string("j1/") + f)) == read_file(dir / (std::string("j2/") + f)));
  }
  const std::vector<Json> points = lines_of(dir / "j1/points.jsonl");
  REQUIRE(points.size() == 24);
  for (size_t i = 0; i < points.size(); ++i) CHECK(points[i]["index"] == i);  // sorted by point
  const std::string csv = read_file(dir / "j1/points.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 25);

  // The front is exactly the non-dominated feasible points.
  const Json pareto = Json::parse(read_file(dir / "j1/pareto.json"));
  std::set<int64_t> front;
  for (const Json& p : pareto["front"]) front.insert(p["index"].get<int64_t>());
  for (const Json& p : points) {
    bool dominated = false;
    for (const Json& q : points) dominated = dominated || dominates(q, p);
    CHECK(front.count(p["index"].get<int64_t>()) == (dominated ? 0u : 1u));
  }
  // Every front point was re-simulated at cycle level, with the cycle model's own numbers.
  for (const Json& p : pareto["front"]) {
    REQUIRE(p["cycle"].is_object());
    CHECK(p["cycle"]["metrics"]["latency_s"].get<double>() > 0);
    CHECK(p["cycle"]["metrics"]["latency_s"].get<double>() >= 0.5 * p["metrics"]["latency_s"].get<double>());
  }
  CHECK(lines_of(dir / "j1/resim.jsonl").size() == front.size());
  const Json manifest = Json::parse(read_file(dir / "j1/sweep.json"));
  CHECK(manifest["complete"] == true);
  CHECK(manifest["points_done"] == 24);

  // The HTML report: written by the sweep, and again by loom report; one mark per point.
  const std::string page = read_file(dir / "j1/report.html");
  size_t marks = 0;
  for (size_t at = 0; (at = page.find("sweep-point", at)) != std::string::npos; ++at) ++marks;
  CHECK(marks >= 24);
  fs::remove(dir / "j1/report.html");
  const RunResult rep = run_loom(dir, {"report", dir / "j1"});
  CHECK_MESSAGE(rep.code == 0, rep.err);
  CHECK(read_file(dir / "j1/report.html") == page);

  // Without --resume an existing result directory is refused, and left alone.
  const RunResult again = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "j1"});
  CHECK(again.code == 2);
  CHECK(contains(again.err, "--resume"));
  // With --resume a finished sweep has nothing left to do and gives the same files.
  const RunResult resumed = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "j1", "--resume", "-q"});
  CHECK_MESSAGE(resumed.code == 0, resumed.err);
  CHECK(read_file(dir / "j1/points.jsonl") == read_file(dir / "j2/points.jsonl"));
}

TEST_CASE("loom sweep: shards and merge give the same results as one run") {
  TempDir dir;
  write_file(dir / "spec.json", small_spec(R"(, "fidelity": {"pareto": "none"})"));
  REQUIRE(run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "all", "-q"}).code == 0);
  for (const char* s : {"0/3", "1/3", "2/3"}) {
    const RunResult r = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / ("shard" + std::string(1, s[0])),
                                       "--shard", s, "-q"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(lines_of(dir / ("shard" + std::string(1, s[0])) + "/points.jsonl").size() == 8);
  }
  // Missing a shard: refused, naming it.
  const RunResult partial = run_loom(dir, {"merge", dir / "shard0", dir / "shard1", "--out", dir / "bad"});
  CHECK(partial.code == 2);
  CHECK(contains(partial.err, "missing: 2/3"));
  // The same shard twice: refused.
  const RunResult twice = run_loom(dir, {"merge", dir / "shard0", dir / "shard0", dir / "shard2", "--out", dir / "bad"});
  CHECK(twice.code == 2);
  const RunResult merged = run_loom(dir, {"merge", dir / "shard2", dir / "shard0", dir / "shard1", "--out", dir / "merged"});
  REQUIRE_MESSAGE(merged.code == 0, merged.err);
  CHECK(read_file(dir / "merged/points.jsonl") == read_file(dir / "all/points.jsonl"));
  CHECK(read_file(dir / "merged/points.csv") == read_file(dir / "all/points.csv"));
  CHECK(Json::parse(read_file(dir / "merged/pareto.json"))["front"] ==
        Json::parse(read_file(dir / "all/pareto.json"))["front"]);
  CHECK(fs::exists(dir / "merged/report.html"));
  // A shard of another spec is refused.
  write_file(dir / "other.json", small_spec(R"(, "fidelity": {"pareto": "none"}, "description": "changed")"));
  REQUIRE(run_loom(dir, {"sweep", dir / "other.json", "--out", dir / "other", "--shard", "1/3", "-q"}).code == 0);
  const RunResult mixed = run_loom(dir, {"merge", dir / "shard0", dir / "other", dir / "shard2", "--out", dir / "bad2",
                                         "--spec", dir / "spec.json"});
  CHECK(mixed.code == 2);
  CHECK(contains(mixed.err, "fingerprint"));
}

TEST_CASE("loom sweep: a cut-off last line is recomputed; a corrupt file is refused") {
  TempDir dir;
  write_file(dir / "spec.json", small_spec(R"(, "fidelity": {"pareto": "none"})"));
  REQUIRE(run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "ref", "-q"}).code == 0);
  const std::string full = read_file(dir / "ref/points.jsonl");
  // Simulate a run killed while writing point 10: lines 0..9 whole, line 10 cut.
  fs::create_directories(dir / "run");
  fs::copy_file(dir / "ref/sweep.json", dir / "run/sweep.json");
  size_t cut = 0;
  for (int i = 0; i < 10; ++i) cut = full.find('\n', cut) + 1;
  write_file(dir / "run/points.jsonl", full.substr(0, cut + 30));
  const RunResult r = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "run", "--resume"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(contains(r.err, "line 11 is incomplete"));
  CHECK(read_file(dir / "run/points.jsonl") == full);
  // Garbage in the middle: exit 2, the file named, nothing overwritten.
  const std::string corrupt = full.substr(0, cut) + "garbage\n" + full.substr(cut);
  write_file(dir / "run/points.jsonl", corrupt);
  const RunResult bad = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "run", "--resume"});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "points.jsonl: line 11"));
  CHECK(read_file(dir / "run/points.jsonl") == corrupt);
  // Resuming with another spec: refused.
  write_file(dir / "spec.json", small_spec(R"(, "fidelity": {"pareto": "none"}, "description": "edited")"));
  write_file(dir / "run/points.jsonl", full);
  const RunResult other = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "run", "--resume"});
  CHECK(other.code == 2);
  CHECK(contains(other.err, "different"));
}

TEST_CASE("loom sweep: SIGINT keeps finished points and --resume completes the same sweep") {
  TempDir dir;
  // Cycle-level points on ResNet-50 take long enough to interrupt.
  const std::string spec = R"({"schema": "loom-sweep/1", "name": "slow", "base": ")" +
                           absolute("configs/systolic_32x32_ws.json") +
                           R"(", "parameters": {"array.rows": [8, 12, 16, 24, 32, 48], "array.cols": [8, 16, 32]},
      "workloads": [")" + absolute("workloads/networks/resnet50.json") + R"("], "objectives": ["latency", "energy"],
      "strategy": {"kind": "grid"}, "fidelity": {"search": "cycle"}})";
  write_file(dir / "spec.json", spec);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::string out = dir / "run", err = dir / "err.txt";
    freopen(err.c_str(), "w", stderr);
    execl(LOOM_BINARY, LOOM_BINARY, "sweep", (dir / "spec.json").c_str(), "--out", out.c_str(), "-j", "2",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the first finished point, then interrupt.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(dir / "run/points.jsonl") && fs::file_size(dir / "run/points.jsonl") > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  const size_t kept = lines_of(dir / "run/points.jsonl").size();
  if (WEXITSTATUS(status) == 130) {  // (a very fast machine may finish first: then 0)
    CHECK(kept >= 1);
    CHECK(kept < 18);
    CHECK(contains(read_file(dir / "err.txt"), "--resume"));
    CHECK(Json::parse(read_file(dir / "run/sweep.json"))["complete"] == false);
  } else {
    CHECK(WEXITSTATUS(status) == 0);
  }
  const RunResult resumed = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "run", "--resume", "-j", "2", "-q"});
  REQUIRE_MESSAGE(resumed.code == 0, resumed.err);
  const RunResult fresh = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "fresh", "-j", "2", "-q"});
  REQUIRE(fresh.code == 0);
  CHECK(read_file(dir / "run/points.jsonl") == read_file(dir / "fresh/points.jsonl"));
  CHECK(read_file(dir / "run/pareto.json") == read_file(dir / "fresh/pareto.json"));
}

TEST_CASE("loom sweep: bad input exits 2 with one line naming the file and field") {
  TempDir dir;
  struct Case {
    const char* what;
    std::string spec;
    std::vector<std::string> extra_args;
    const char* expect;
  };
  const std::string base = absolute("configs/systolic_32x32_ws.json");
  const std::vector<Case> cases = {
      {"unknown parameter path", small_spec().replace(small_spec().find("array.cols"), 10, "array.colz"), {}, "array.colz"},
      {"empty range", small_spec().replace(small_spec().find("[8, 32, 128]"), 12, R"({"from": 9, "to": 2, "step": 1})"), {},
       "non-empty range"},
      {"constraint no point meets", small_spec(R"(, "constraints": {"area_mm2": {"max": 0.0001}})"), {},
       "constraints.area_mm2"},
      {"shard index out of range", small_spec(), {"--shard", "3/3"}, "out of range"},
      {"shard of an NSGA-II sweep",
       small_spec().replace(small_spec().find(R"({"kind": "grid"})"), 16, R"({"kind": "nsga2", "population": 4, "generations": 1})"),
       {"--shard", "0/2"}, "strategy.kind"},
      {"malformed JSON", "{\"schema\": ", {}, "spec.json"},
      {"missing workload", small_spec().replace(small_spec().find("lenet5.json"), 11, "nope.json"), {}, "workloads[0]"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    write_file(dir / "spec.json", c.spec);
    std::vector<std::string> args = {"sweep", dir / "spec.json", "--out", dir / "out"};
    args.insert(args.end(), c.extra_args.begin(), c.extra_args.end());
    const RunResult r = run_loom(dir, args);
    CHECK(r.code == 2);
    CHECK(contains(r.err, c.expect));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(dir / "out/points.jsonl"));
  }
  // A power limit no point meets is found only after the points run: results kept, exit 2.
  write_file(dir / "spec.json", small_spec(R"(, "constraints": {"power_w": {"max": 1e-9}})"));
  const RunResult r = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "power", "-q"});
  CHECK(r.code == 2);
  CHECK(contains(r.err, "no evaluated point meets the constraints"));
  CHECK(lines_of(dir / "power/points.jsonl").size() == 24);
  // loom report on something that is not a result directory.
  const RunResult rep = run_loom(dir, {"report", dir.path().string()});
  CHECK(rep.code == 2);
  CHECK(contains(rep.err, "RESULT_DIR"));
}

TEST_CASE("loom roofline prints roofs, ridge points and every layer's bound") {
  TempDir dir;
  const RunResult r = run_loom(dir, {"roofline", "--arch", "configs/systolic_32x32_ws.json", "--workload",
                                     "workloads/networks/alexnet.json"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(contains(r.out, "compute roof"));
  CHECK(contains(r.out, "ridge FLOP/byte"));
  CHECK(contains(r.out, "int8"));
  CHECK(contains(r.out, "layers are memory-bound"));
  // AlexNet's fully connected layers have an intensity near 2 FLOP/byte: memory-bound on a
  // 32x32 array at 10 B/cycle (ridge 204.8 FLOP/byte).
  CHECK(contains(r.out, "204.8"));
  const RunResult gpu = run_loom(dir, {"roofline", "--arch", "configs/v100.json", "--workload",
                                       "workloads/networks/resnet50.json"});
  REQUIRE_MESSAGE(gpu.code == 0, gpu.err);
  CHECK(contains(gpu.out, "fp16 tensor"));
  CHECK(contains(gpu.out, "l2"));
}
