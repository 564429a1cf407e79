// Interrupting `loom run` and `loom sweep` and resuming them, end to end. The interruptions
// are deterministic: LOOM_TEST_INTERRUPT_AFTER_LAYERS / _POINTS make loom send itself
// SIGINT (or SIGTERM) right after the k-th layer or point is kept, so the real signal
// handlers run at a known point. What must hold: exit code 130 and a message that counts
// what was kept and gives the resume command; no report file written, none clobbered; a
// resumed run writes the same bytes as an uninterrupted one; a cut-off last checkpoint
// line is dropped; a checkpoint of another run is refused.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_harness.h"

namespace fs = std::filesystem;
using namespace loom_test;
using Json = nlohmann::json;

namespace {

const std::string kSrc = LOOM_SOURCE_DIR;
const std::vector<std::string> kRunFiles = {"report.json", "layers.csv", "resolved_config.json", "report.html"};

// Sets environment variables for the loom processes started while it lives.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<std::string, std::string>> vars) : vars_(vars) {
    for (const auto& [k, v] : vars_) setenv(k.c_str(), v.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    for (const auto& [k, v] : vars_) unsetenv(k.c_str());
  }

 private:
  std::vector<std::pair<std::string, std::string>> vars_;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The terminal table without the lines that differ between two identical runs (the
// output directory, the mapper's search time).
std::string table_of(const std::string& out) {
  std::string t;
  for (const std::string& line : lines_of(out)) {
    if (line.rfind("reports: ", 0) != 0 && line.rfind("mapped ", 0) != 0) t += line + "\n";
  }
  return t;
}

void check_same_files(const fs::path& a, const fs::path& b, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    INFO("file " << name);
    REQUIRE(fs::is_regular_file(a / name));
    REQUIRE(fs::is_regular_file(b / name));
    CHECK(read_file(a / name) == read_file(b / name));
  }
}

// No report file and no temporary file in `dir`.
void check_no_reports(const fs::path& dir) {
  for (const std::string& name : kRunFiles) CHECK_MESSAGE(!fs::exists(dir / name), name);
  if (!fs::exists(dir)) return;
  for (const auto& e : fs::directory_iterator(dir)) CHECK_MESSAGE(e.path().extension() != ".tmp", e.path().string());
}

struct RunCase {
  std::string arch, workload;
  size_t layers = 0;
  std::vector<std::string> extra;  // options after --out
};

std::vector<std::string> run_args(const RunCase& c, const std::string& out, const std::string& workload = "") {
  std::vector<std::string> a = {"run", "--arch", c.arch, "--workload", workload.empty() ? c.workload : workload,
                                "--out", out};
  a.insert(a.end(), c.extra.begin(), c.extra.end());
  return a;
}

// The interruption, the message, the checkpoint, resume, and byte-identical reports.
void check_interrupt_and_resume(const RunCase& c, const std::string& other_workload) {
  TempDir dir;
  const fs::path ref = dir.path() / "ref", run = dir.path() / "run";
  const RunResult full = run_loom(dir, run_args(c, ref.string()));
  REQUIRE_MESSAGE(full.code == 0, full.err);
  CHECK_FALSE(fs::exists(ref / "run.checkpoint.jsonl"));  // removed once the reports are written
  const std::string checkpoint = (run / "run.checkpoint.jsonl").string();

  // Interrupted after 2 layers: exit 130, the count and the resume command, no report.
  {
    ScopedEnv env({{"LOOM_TEST_INTERRUPT_AFTER_LAYERS", "2"}});
    const RunResult r = run_loom(dir, run_args(c, run.string()));
    CHECK(r.code == 130);
    std::string resume = "loom run --arch " + c.arch + " --workload " + c.workload + " --out " + run.string();
    for (const std::string& e : c.extra) resume += " " + e;
    CHECK_MESSAGE(contains(r.err, "loom: interrupted: 2 of " + std::to_string(c.layers) +
                                      " layers finished and kept in " + checkpoint + "; resume with:\n  " + resume +
                                      " --resume\n"),
                  r.err);
  }
  check_no_reports(run);
  std::vector<std::string> kept = lines_of(read_file(checkpoint));
  REQUIRE(kept.size() == 3);  // the header and two layers
  const Json header = Json::parse(kept[0]);
  CHECK(header["checkpoint"] == "loom-run/1");
  CHECK(header["layers"] == c.layers);
  CHECK(Json::parse(kept[1])["layer"] == 0);
  CHECK(Json::parse(kept[2])["layer"] == 1);

  // A checkpoint of another run (here: another workload) is refused, and left alone.
  const RunResult other = run_loom(dir, run_args(c, run.string(), other_workload));
  CHECK(other.code == 0);  // without --resume: a fresh run, which replaces the checkpoint
  CHECK_FALSE(fs::exists(checkpoint));
  {
    ScopedEnv env({{"LOOM_TEST_INTERRUPT_AFTER_LAYERS", "2"}, {"LOOM_TEST_INTERRUPT_SIGNAL", "TERM"}});
    const RunResult r = run_loom(dir, run_args(c, run.string()));  // SIGTERM: the same as SIGINT
    CHECK(r.code == 130);
    CHECK_MESSAGE(contains(r.err, "loom: interrupted: 2 of "), r.err);
  }
  // The other workload's complete reports were not clobbered by the interrupted run.
  const std::string other_report = read_file(run / "report.json");
  CHECK(Json::parse(other_report).contains("summary"));
  std::vector<std::string> mismatch_args = run_args(c, run.string(), other_workload);
  mismatch_args.push_back("--resume");
  const std::string before = read_file(checkpoint);
  const RunResult refused = run_loom(dir, mismatch_args);
  CHECK(refused.code == 2);
  CHECK_MESSAGE(contains(refused.err, "run.checkpoint.jsonl: fingerprint:"), refused.err);
  CHECK(contains(refused.err, "different run"));
  CHECK(refused.out.empty());
  CHECK(read_file(checkpoint) == before);
  CHECK(read_file(run / "report.json") == other_report);

  // A line cut off mid-write is dropped (its layer simulated again), and the resumed run
  // writes exactly the files of the uninterrupted one, then removes the checkpoint.
  kept = lines_of(before);
  REQUIRE(kept.size() == 3);
  write_file(checkpoint, kept[0] + "\n" + kept[1] + "\n" + kept[2].substr(0, kept[2].size() / 2));
  std::vector<std::string> resume_args = run_args(c, run.string());
  resume_args.push_back("--resume");
  const RunResult resumed = run_loom(dir, resume_args);
  REQUIRE_MESSAGE(resumed.code == 0, resumed.err);
  CHECK(contains(resumed.err, "line 3 is incomplete"));
  CHECK(contains(resumed.err, "resuming: 1 of " + std::to_string(c.layers) + " layers kept"));
  check_same_files(ref, run, kRunFiles);
  CHECK(table_of(resumed.out) == table_of(full.out));
  CHECK_FALSE(fs::exists(checkpoint));
}

}  // namespace

TEST_CASE("loom run interrupted: systolic layers are kept and --resume writes the same reports") {
  check_interrupt_and_resume(
      {kSrc + "/configs/systolic_32x32_ws.json", kSrc + "/workloads/networks/lenet5.json", 5, {}},
      kSrc + "/workloads/networks/alexnet.json");
}

TEST_CASE("loom run interrupted: GPU layers are kept and --resume writes the same reports") {
  // Three GEMMs on the V100 model, the last a repeat of the first (taken, not simulated).
  TempDir inputs;
  write_file(inputs / "net.json", R"({"schema": "loom-network/1", "name": "three_gemms", "batch": 1, "layers": [
      {"name": "a", "type": "gemm", "m": 64, "n": 64, "k": 64},
      {"name": "b", "type": "gemm", "m": 32, "n": 64, "k": 128},
      {"name": "c", "type": "gemm", "m": 64, "n": 64, "k": 64}]})");
  check_interrupt_and_resume({kSrc + "/configs/v100.json", inputs / "net.json", 3, {"--precision", "fp32"}},
                             kSrc + "/workloads/networks/lenet5.json");
}

TEST_CASE("loom run interrupted: hierarchy mappings are kept and --resume writes the same reports") {
  check_interrupt_and_resume({kSrc + "/configs/eyeriss_like_rs.json", kSrc + "/workloads/networks/lenet5.json", 5,
                              {"--objective", "energy"}},
                             kSrc + "/workloads/networks/alexnet.json");
}

TEST_CASE("loom run --resume: a checkpoint corrupt in the middle is refused; none at all runs every layer") {
  TempDir dir;
  const std::string arch = kSrc + "/configs/systolic_32x32_ws.json", net = kSrc + "/workloads/networks/lenet5.json";
  {
    ScopedEnv env({{"LOOM_TEST_INTERRUPT_AFTER_LAYERS", "3"}});
    REQUIRE(run_loom(dir, {"run", "--arch", arch, "--workload", net, "--out", dir / "run", "-q"}).code == 130);
  }
  std::vector<std::string> kept = lines_of(read_file(dir / "run/run.checkpoint.jsonl"));
  REQUIRE(kept.size() == 4);
  write_file(dir / "run/run.checkpoint.jsonl", kept[0] + "\n" + kept[1] + "\ngarbage\n" + kept[3] + "\n");
  const RunResult bad = run_loom(dir, {"run", "--arch", arch, "--workload", net, "--out", dir / "run", "--resume"});
  CHECK(bad.code == 2);
  CHECK_MESSAGE(contains(bad.err, "run.checkpoint.jsonl: line 3: "), bad.err);
  CHECK(contains(bad.err, "corrupt"));
  check_no_reports(dir.path() / "run");
  // So is a well-formed line whose record does not rebuild a layer.
  write_file(dir / "run/run.checkpoint.jsonl",
             kept[0] + "\n" + kept[1] + "\n{\"layer\": 1, \"result\": {\"cycles\": 5}}\n" + kept[3] + "\n");
  const RunResult wrong = run_loom(dir, {"run", "--arch", arch, "--workload", net, "--out", dir / "run", "--resume"});
  CHECK(wrong.code == 2);
  CHECK_MESSAGE(contains(wrong.err, "run.checkpoint.jsonl: line 3: a finished layer's record"), wrong.err);
  CHECK_FALSE(contains(wrong.err, "internal error"));
  check_no_reports(dir.path() / "run");
  // An empty file has no header: appending to it would give a checkpoint without one.
  write_file(dir / "run/run.checkpoint.jsonl", "");
  const RunResult empty = run_loom(dir, {"run", "--arch", arch, "--workload", net, "--out", dir / "run", "--resume"});
  CHECK(empty.code == 2);
  CHECK_MESSAGE(contains(empty.err, "run.checkpoint.jsonl: line 1: a loom run checkpoint"), empty.err);
  check_no_reports(dir.path() / "run");
  // --resume with no checkpoint runs every layer.
  const RunResult fresh = run_loom(dir, {"run", "--arch", arch, "--workload", net, "--out", dir / "fresh", "--resume"});
  CHECK(fresh.code == 0);
  CHECK(contains(fresh.err, "no checkpoint"));
}

TEST_CASE("loom sweep interrupted by a process-group signal resumes to the same results") {
  TempDir dir;
  const std::string spec = R"({"schema": "loom-sweep/1", "name": "small", "base": ")" + kSrc +
                           R"(/configs/systolic_32x32_ws.json", "parameters": {"array.rows": [8, 16, 32, 64],
      "array.cols": [8, 32, 128], "array.dataflow": ["ws", "os"]}, "workloads": [")" + kSrc +
                           R"(/workloads/networks/lenet5.json"], "objectives": ["latency", "energy"],
      "strategy": {"kind": "grid"}})";
  write_file(dir / "spec.json", spec);
  const RunResult full = run_loom(dir, {"sweep", dir / "spec.json", "--out", dir / "ref", "-j", "2", "-q"});
  REQUIRE_MESSAGE(full.code == 0, full.err);

  // As a terminal's Ctrl-C or a batch system's SIGTERM: the signal reaches the workers too.
  for (const char* sig : {"INT", "TERM"}) {
    INFO("SIG" << sig);
    const fs::path out = dir.path() / (std::string("run_") + sig);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      setpgid(0, 0);  // loom's own process group, so the signal does not reach the test
      setenv("LOOM_TEST_INTERRUPT_AFTER_POINTS", "5", 1);
      setenv("LOOM_TEST_INTERRUPT_SIGNAL", sig, 1);
      setenv("LOOM_TEST_INTERRUPT_GROUP", "1", 1);
      const std::string err = dir / (std::string("err_") + sig + ".txt");
      if (freopen(err.c_str(), "w", stderr) == nullptr) _exit(126);
      execl(LOOM_BINARY, LOOM_BINARY, "sweep", (dir / "spec.json").c_str(), "--out", out.c_str(), "-j", "2",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
    const std::string err = read_file(dir / (std::string("err_") + sig + ".txt"));
    CHECK_MESSAGE(contains(err, "loom: interrupted: 5 of 24 points finished and kept in " +
                                    (out / "points.jsonl").string() + "; resume with:\n  loom sweep " +
                                    (dir / "spec.json") + " --out " + out.string() + " --resume -j 2"),
                  err);
    // Exactly the five points, none of them a worker killed by the signal.
    const std::vector<std::string> points = lines_of(read_file(out / "points.jsonl"));
    CHECK(points.size() == 5);
    for (const std::string& p : points) CHECK(Json::parse(p)["error"].is_null());
    CHECK_FALSE(fs::exists(out / "pareto.json"));

    const RunResult resumed =
        run_loom(dir, {"sweep", dir / "spec.json", "--out", out.string(), "--resume", "-j", "2", "-q"});
    REQUIRE_MESSAGE(resumed.code == 0, resumed.err);
    check_same_files(dir.path() / "ref", out,
                     {"points.jsonl", "points.csv", "pareto.json", "pareto.csv", "resim.jsonl", "sweep.json",
                      "report.html"});
  }
}
