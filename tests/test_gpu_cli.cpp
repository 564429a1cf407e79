// End-to-end tests of `loom gpu` and of `loom run` on a GPU config, through the built binary:
// shipped kernels run, are checked against their CPU reference and report what the issue
// asks for; custom .ptx launches work; every bad input (PTX that does not parse, an
// unsupported instruction, argument count/type mismatches, a launch beyond the config's
// limits, an out-of-bounds access) exits 2 with one error line that names the problem and
// leaves no report behind.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_harness.h"

using namespace loom_test;
using nlohmann::json;

namespace {

const std::string kSrc = LOOM_SOURCE_DIR;
const std::string kV100 = kSrc + "/configs/v100.json";
const std::string kT4 = kSrc + "/configs/t4.json";

// A kernel that copies n floats: y[i] = x[i], with an explicit bound check on i.
const char* kCopyPtx = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry copy(.param .u64 x, .param .u64 y, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  st.global.f32 [%rd5], %f1;
DONE:
  ret;
}
)";

void expect_bad_input(const TempDir& dir, const std::vector<std::string>& args, const std::vector<std::string>& parts) {
  const RunResult r = run_loom(dir, args);
  CHECK(r.code == 2);
  for (const std::string& p : parts) CHECK_MESSAGE(contains(r.err, p), "stderr lacks '" << p << "': " << r.err);
  CHECK_FALSE(fs::exists(dir.path() / "out" / "report.json"));
}

}  // namespace

TEST_CASE("gpu cli: a shipped tensor-core kernel runs, passes its check and reports every figure") {
  TempDir dir;
  const RunResult r = run_loom(dir, {"gpu", "--arch", kV100, "--kernel", "wmma_gemm", "--size", "M=64,N=128,K=64",
                                     "--out", dir / "out"});
  REQUIRE(r.code == 0);
  for (const char* part : {"cycles", "IPC", "FLOP/s", "tensor cores", "L1 / L2 hit rate", "DRAM", "bank conflicts",
                           "sub-core cycles", "energy", "passed"})
    CHECK_MESSAGE(contains(r.out, part), "stdout lacks '" << part << "'");
  const json report = json::parse(read_file(dir.path() / "out" / "report.json"));
  CHECK(report["command"] == "gpu");
  CHECK(report["verification"]["ok"] == true);
  CHECK(report["cycles"].get<int64_t>() > 0);
  CHECK(report["tensor_cores"]["mma_instructions"] == 4 * 8 * 4);  // (64/16) x (128/16) tiles x (64/16) k-steps
  CHECK(report["flops"] == 2 * 64 * 128 * 64);
  double share = 0;
  for (const auto& [name, v] : report["stall_share"].items()) share += v.get<double>();
  CHECK(share == doctest::Approx(1.0));
  CHECK(report["energy_pj"].get<double>() > 0);
  CHECK(fs::exists(dir.path() / "out" / "resolved_config.json"));
}

TEST_CASE("gpu cli: same inputs give byte-identical reports") {
  TempDir dir;
  for (const char* out : {"a", "b"}) {
    REQUIRE(run_loom(dir, {"gpu", "--arch", kT4, "--kernel", "tiled_gemm", "--size", "M=40,N=24,K=33", "-q", "--out",
                           dir / out}).code == 0);
  }
  CHECK(read_file(dir.path() / "a" / "report.json") == read_file(dir.path() / "b" / "report.json"));
}

TEST_CASE("gpu cli: a custom .ptx kernel and a JSON launch file run") {
  TempDir dir;
  write_file(dir.path() / "copy.ptx", kCopyPtx);
  const RunResult r = run_loom(dir, {"gpu", "--arch", kV100, "--kernel", dir / "copy.ptx", "--grid", "4", "--block",
                                     "256", "--args", "f32[1000],f32[1000]:zeros,1000", "--out", dir / "out"});
  CHECK(r.code == 0);
  CHECK(contains(r.out, "not checked"));
  write_file(dir.path() / "launch.json",
             R"({"arch": ")" + kV100 + R"(", "kernel": "reduction", "sizes": {"n": 4096}})");
  const RunResult l = run_loom(dir, {"gpu", "--launch", dir / "launch.json", "--out", dir / "out2", "-q"});
  CHECK(l.code == 0);
  CHECK(contains(l.out, "check ok"));
  const RunResult defaults = run_loom(dir, {"gpu", "--arch", kV100, "--kernel", "pointer_chase", "-q", "--out",
                                            dir / "out3"});  // no --size: every size at its default
  CHECK(defaults.code == 0);
  CHECK(contains(defaults.out, "check ok"));
  const RunResult list = run_loom(dir, {"gpu", "--list"});
  CHECK(list.code == 0);
  CHECK(contains(list.out, "pointer_chase"));
}

TEST_CASE("gpu cli: kernels that may run ahead do by default; --execute-at-issue gives the same report at issue") {
  TempDir dir;
  const std::vector<std::string> naive = {"gpu", "--arch", kV100, "--kernel", "naive_gemm", "--size", "M=64,N=64,K=64", "-q"};
  auto with = [&](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  REQUIRE(run_loom(dir, with(naive, {"--out", dir / "ahead"})).code == 0);
  REQUIRE(run_loom(dir, with(naive, {"--execute-at-issue", "--out", dir / "issue"})).code == 0);
  json ahead = json::parse(read_file(dir.path() / "ahead" / "report.json"));
  json issue = json::parse(read_file(dir.path() / "issue" / "report.json"));
  CHECK(ahead["execution"] == "run_ahead");
  CHECK(issue["execution"] == "at_issue");
  ahead.erase("execution");
  issue.erase("execution");
  CHECK(ahead == issue);  // every other field, cycles and energy included
  write_file(dir.path() / "launch.json", R"({"arch": ")" + kV100 +
                                             R"(", "kernel": "naive_gemm", "sizes": {"M": 64, "N": 64, "K": 64}, "execute_at_issue": true})");
  REQUIRE(run_loom(dir, {"gpu", "--launch", dir / "launch.json", "-q", "--out", dir / "l"}).code == 0);
  CHECK(json::parse(read_file(dir.path() / "l" / "report.json"))["execution"] == "at_issue");
  // A kernel with barriers always executes at issue.
  REQUIRE(run_loom(dir, {"gpu", "--arch", kV100, "--kernel", "tiled_gemm", "--size", "M=64,N=64,K=64", "-q", "--out",
                         dir / "tiled"})
              .code == 0);
  CHECK(json::parse(read_file(dir.path() / "tiled" / "report.json"))["execution"] == "at_issue");
  write_file(dir.path() / "bad.json", R"({"arch": ")" + kV100 + R"(", "kernel": "naive_gemm", "execute_at_issue": "yes"})");
  const RunResult bad = run_loom(dir, {"gpu", "--launch", dir / "bad.json", "-q", "--out", dir / "b"});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "execute_at_issue"));
}

TEST_CASE("gpu cli: --issue-order written runs the PTX as written; the scheduled order is faster on the naive GEMM") {
  TempDir dir;
  const RunResult scheduled = run_loom(dir, {"gpu", "--arch", kV100, "--kernel", "naive_gemm", "--size", "M=64,N=64,K=64",
                                             "-q", "--out", dir / "s"});
  const RunResult written = run_loom(dir, {"gpu", "--arch", kV100, "--kernel", "naive_gemm", "--size", "M=64,N=64,K=64",
                                           "--issue-order", "written", "-q", "--out", dir / "w"});
  REQUIRE(scheduled.code == 0);
  REQUIRE(written.code == 0);
  const json s = json::parse(read_file(dir.path() / "s" / "report.json"));
  const json w = json::parse(read_file(dir.path() / "w" / "report.json"));
  CHECK(s["issue_order"] == "scheduled");
  CHECK(w["issue_order"] == "written");
  CHECK(s["verification"]["ok"] == true);
  CHECK(w["verification"]["ok"] == true);
  CHECK(s["instructions"]["warp"] == w["instructions"]["warp"]);  // the same instructions...
  CHECK(s["cycles"].get<int64_t>() * 2 < w["cycles"].get<int64_t>());  // ...with the loads in flight together
  write_file(dir.path() / "launch.json", R"({"arch": ")" + kV100 +
                                             R"(", "kernel": "naive_gemm", "sizes": {"M": 64, "N": 64, "K": 64}, "issue_order": "written"})");
  REQUIRE(run_loom(dir, {"gpu", "--launch", dir / "launch.json", "-q", "--out", dir / "l"}).code == 0);
  CHECK(json::parse(read_file(dir.path() / "l" / "report.json"))["cycles"] == w["cycles"]);
  const RunResult bad = run_loom(dir, {"gpu", "--arch", kV100, "--kernel", "naive_gemm", "--issue-order", "random"});
  CHECK(bad.code != 0);
  CHECK(contains(bad.err, "--issue-order"));
}

TEST_CASE("gpu cli: bad PTX, bad arguments, oversized launches and out-of-bounds accesses exit 2 with a clear error") {
  TempDir dir;
  const std::string out = dir / "out";
  write_file(dir.path() / "copy.ptx", kCopyPtx);
  std::string broken = kCopyPtx;
  broken.replace(broken.find("mad.lo.s32 %r5, %r2, %r3, %r4;"), 30, "mad.lo.s32 %r5, %r2 %r3, %r4;");
  write_file(dir.path() / "broken.ptx", broken);
  std::string unsupported = kCopyPtx;
  unsupported.replace(unsupported.find("mov.u32 %r4, %tid.x;"), 20, "dp4a.u32.u32 %r4, %r2, %r3, %r1;");
  write_file(dir.path() / "unsupported.ptx", unsupported);

  const std::vector<std::string> copy = {"gpu", "--arch", kV100, "--out", out, "--kernel", dir / "copy.ptx"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = copy;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  SUBCASE("PTX that does not parse names its line") {
    expect_bad_input(dir, {"gpu", "--arch", kV100, "--out", out, "--kernel", dir / "broken.ptx", "--grid", "1",
                           "--block", "32", "--args", "f32[32],f32[32],32"},
                     {"broken.ptx", "line 17"});
  }
  SUBCASE("an unsupported instruction is named with its line") {
    expect_bad_input(dir, {"gpu", "--arch", kV100, "--out", out, "--kernel", dir / "unsupported.ptx", "--grid", "1",
                           "--block", "32", "--args", "f32[32],f32[32],32"},
                     {"dp4a", "line 16"});
  }
  SUBCASE("argument count mismatch") {
    expect_bad_input(dir, with({"--grid", "1", "--block", "32", "--args", "f32[32],f32[32]"}),
                     {"copy", "3 parameters"});
  }
  SUBCASE("argument type mismatch") {
    expect_bad_input(dir, with({"--grid", "1", "--block", "32", "--args", "f32[32],f32[32],2.5"}), {"copy"});
  }
  SUBCASE("a block beyond the config's limit") {
    expect_bad_input(dir, with({"--grid", "1", "--block", "2048", "--args", "f32[32],f32[32],32"}), {"1024"});
  }
  SUBCASE("a grid beyond the config's y limit") {
    expect_bad_input(dir, with({"--grid", "1,70000", "--block", "32", "--args", "f32[32],f32[32],32"}), {"65535"});
  }
  SUBCASE("an out-of-bounds access names the thread, the address and the instruction") {
    expect_bad_input(dir, with({"--grid", "1", "--block", "64", "--args", "f32[32],f32[64],64"}),
                     {"tid 32,0,0", "0x", "ld.global.f32"});
  }
  SUBCASE("shipped kernels reject sizes they cannot run") {
    expect_bad_input(dir, {"gpu", "--arch", kV100, "--out", out, "--kernel", "wmma_gemm", "--size", "M=20"},
                     {"multiple of 16"});
  }
  SUBCASE("a non-GPU architecture") {
    expect_bad_input(dir, {"gpu", "--arch", kSrc + "/configs/systolic_32x32_ws.json", "--out", out, "--kernel",
                           "triad"},
                     {"kind"});
  }
}

TEST_CASE("gpu cli: loom run simulates a network on the GPU model through the shipped kernels") {
  TempDir dir;
  const RunResult r = run_loom(dir, {"run", "--arch", kV100, "--workload", kSrc + "/workloads/networks/lenet5.json",
                                     "--out", dir / "out"});
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "wmma_gemm"));
  const json report = json::parse(read_file(dir.path() / "out" / "report.json"));
  CHECK(report["model"] == "simt");
  CHECK(report["layers"].size() == 5);
  int64_t sum = 0;
  for (const json& l : report["layers"]) sum += l["cycles"]["total"].get<int64_t>();
  CHECK(report["total"]["cycles"]["total"] == sum);
  const RunResult f = run_loom(dir, {"run", "--arch", kV100, "--workload", kSrc + "/workloads/networks/lenet5.json",
                                     "--precision", "fp32", "--out", dir / "out32", "-q"});
  CHECK(f.code == 0);
  const json r32 = json::parse(read_file(dir.path() / "out32" / "report.json"));
  CHECK(r32["layers"][0]["kernel"] == "conv_implicit_gemm");
}
