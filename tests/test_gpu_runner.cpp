// The CUDA runner (validate/runner/, loom-gpu-runner) as far as a machine without a GPU can
// test it: it is built wherever nvcc is, and CI has no GPU. Every run hides the GPUs
// (CUDA_VISIBLE_DEVICES=-1), so these tests behave the same on a machine that has one.
// Without a GPU the runner must stop cleanly (exit 3, one clear line, no file); --help and
// bad arguments work; and --dry-run builds every planned launch and checks it against the
// kernels compiled into the runner, so a shipped kernel and loom's recipe that disagree
// about the arguments fail here, not on the GPU machine.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "arch/simt/kernels/kernel_catalog.h"
#include "tests/cli_harness.h"
#include "validate/microbenchmarks.h"

#ifdef LOOM_GPU_RUNNER

#include <sys/wait.h>

#include <atomic>
#include <cstdlib>

using namespace loom_test;

namespace {

RunResult run_runner(const TempDir& dir, const std::vector<std::string>& args) {
  static std::atomic<int> counter{0};
  const int n = counter++;
  const fs::path out_file = dir.path() / ("runner_stdout_" + std::to_string(n) + ".txt");
  const fs::path err_file = dir.path() / ("runner_stderr_" + std::to_string(n) + ".txt");
  std::string cmd = "CUDA_VISIBLE_DEVICES=-1 " + sh_quote(LOOM_GPU_RUNNER);
  for (const std::string& a : args) cmd += " " + sh_quote(a);
  cmd += " </dev/null >" + sh_quote(out_file.string()) + " 2>" + sh_quote(err_file.string());
  const int status = std::system(cmd.c_str());
  REQUIRE_MESSAGE(status != -1, "std::system failed for " << cmd);
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out_file);
  r.err = read_file(err_file);
  return r;
}

}  // namespace

TEST_CASE("gpu runner: without a GPU it exits 3 with one clear line and writes nothing") {
  TempDir dir;
  const RunResult r = run_runner(dir, {"--quick", "--out", dir / "data"});
  CHECK(r.code == 3);
  CHECK_MESSAGE(contains(r.err, "loom-gpu-runner: no CUDA device found: "), r.err);
  CHECK_FALSE(fs::exists(dir.path() / "data"));
}

TEST_CASE("gpu runner: --help names every option") {
  TempDir dir;
  const RunResult r = run_runner(dir, {"--help"});
  CHECK(r.code == 0);
  for (const char* option : {"--out", "--quick", "--repeats", "--warmups", "--device", "--kernels", "--seed",
                             "--sm-clock-mhz", "--dry-run", "Exit codes"})
    CHECK_MESSAGE(contains(r.out, option), "--help lacks " << option << ": " << r.out);
}

TEST_CASE("gpu runner: bad arguments exit 2 before any CUDA call") {
  TempDir dir;
  RunResult r = run_runner(dir, {"--kernels", "wmma_gemm,no_such_kernel"});
  CHECK(r.code == 2);
  CHECK_MESSAGE(contains(r.err, "'no_such_kernel'"), r.err);
  r = run_runner(dir, {"--repeats", "0"});
  CHECK(r.code == 2);
  CHECK_MESSAGE(contains(r.err, "--repeats"), r.err);
  r = run_runner(dir, {"--no-such-option"});
  CHECK(r.code == 2);
}

TEST_CASE("gpu runner: --dry-run plans every shipped kernel, probe and cuBLAS reference, and they match the kernels") {
  TempDir dir;
  const RunResult r = run_runner(dir, {"--dry-run"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(contains(r.out, "plan for a nominal device"));
  CHECK(contains(r.out, "launch overhead (empty kernel)"));
  for (const loom::simt::KernelInfo& k : loom::simt::kernel_catalog())
    CHECK_MESSAGE(contains(r.out, " " + k.name + " "), "the plan never launches " << k.name);
  for (const loom::validate::MicrobenchmarkDef& m : loom::validate::microbenchmark_catalog())
    CHECK_MESSAGE(contains(r.out, m.name + ", small launch: "), "the plan has no " << m.name << " probe");
  CHECK(contains(r.out, "cublas_sgemm M=8192,N=8192,K=8192"));
  CHECK(contains(r.out, "cublas_hgemm_tensor_op M=128,N=128,K=128"));
  CHECK(contains(r.out, "wmma_gemm M=1024,N=1024,K=1024: grid 16x64x1, block 128x1x1"));
}

TEST_CASE("gpu runner: --kernels keeps only the named kernels' runs and probes") {
  TempDir dir;
  const RunResult r = run_runner(dir, {"--dry-run", "--quick", "--kernels", "triad"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(contains(r.out, "triad n=65536,blocks=0"));
  CHECK(contains(r.out, "dram_bandwidth, small launch: triad"));
  CHECK_FALSE(contains(r.out, "gemm"));
  CHECK_FALSE(contains(r.out, "cublas"));
  CHECK_FALSE(contains(r.out, "n=268435456"));  // --quick: the smaller half of the sweep
}

#else

TEST_CASE("gpu runner: not built here (no nvcc), so not tested") {
  MESSAGE("loom-gpu-runner was not built (no CUDA Toolkit): skipping its tests");
}

#endif
