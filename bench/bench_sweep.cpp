// Sweep benchmark: the 1,000-point systolic grid over ResNet-50 of
// configs/sweeps/systolic_resnet50_1000.json on the analytic model, with -j 1 and -j 2
// worker processes, the same sweep with its Pareto front re-simulated at cycle level, and
// the whole sweep at cycle level (the ratio the analytic search buys); and the time to
// render the sweep's report.html again.
// Target (issue 6): under 60 s on a 2-core machine. Figures: docs/performance.md, "Sweeps".
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "apps/report_command.h"
#include "bench/bench.h"
#include "sim/json_reader.h"
#include "sim/text_file.h"
#include "sweep/sweep_runner.h"

namespace {

namespace fs = std::filesystem;

// The shipped spec with absolute paths and the requested re-simulation, in `dir`.
std::string spec_copy(const fs::path& dir, bool resimulate, bool cycle_search = false) {
  const std::string shipped = std::string(LOOM_SOURCE_DIR) + "/configs/sweeps/systolic_resnet50_1000.json";
  loom::Json spec = loom::load_json_file(shipped);
  const fs::path from = fs::path(shipped).parent_path();
  spec["base"] = fs::weakly_canonical(from / spec["base"].get<std::string>()).string();
  for (auto& w : spec["workloads"]) w = fs::weakly_canonical(from / w.get<std::string>()).string();
  spec["fidelity"]["pareto"] = resimulate ? "cycle" : "none";
  spec["fidelity"]["search"] = cycle_search ? "cycle" : "analytic";
  const std::string path =
      (dir / (cycle_search ? "spec_cycle.json" : resimulate ? "spec_resim.json" : "spec.json")).string();
  loom::write_file_atomically(path, spec.dump(2));
  return path;
}

double run_seconds(const std::string& spec, const fs::path& out, int jobs, loom::SweepOutcome* outcome) {
  loom::SweepRunOptions o;
  o.spec_file = spec;
  o.out_dir = out.string();
  o.jobs = jobs;
  o.quiet = true;
  std::atomic<bool> stop{false};
  const auto t0 = std::chrono::steady_clock::now();
  *outcome = loom::run_sweep(o, stop);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int bench_sweep(const std::vector<std::string>& args) {
  (void)args;
  const fs::path dir = fs::temp_directory_path() / ("loom_bench_sweep_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string spec = spec_copy(dir, false), spec_resim = spec_copy(dir, true);
  std::printf("sweep: configs/sweeps/systolic_resnet50_1000.json (1,000 systolic points x ResNet-50, analytic)\n");
  std::printf("machine: %u hardware threads\n", std::thread::hardware_concurrency());
  loom::SweepOutcome r1, r2, r3;
  const double t1 = run_seconds(spec, dir / "j1", 1, &r1);
  std::printf("  -j 1: %6.2f s  %7.1f points/s  (%lld points, front %lld)\n", t1, 1000 / t1,
              static_cast<long long>(r1.done), static_cast<long long>(r1.front));
  const double t2 = run_seconds(spec, dir / "j2", 2, &r2);
  std::printf("  -j 2: %6.2f s  %7.1f points/s  (speed-up %.2fx over -j 1)\n", t2, 1000 / t2, t1 / t2);
  const double t3 = run_seconds(spec_resim, dir / "resim", 2, &r3);
  std::printf("  -j 2 with the front (%lld points) re-simulated at cycle level: %.2f s (+%.2f s)\n",
              static_cast<long long>(r3.resimulated), t3, t3 - t2);
  loom::SweepOutcome r4;
  const double t4 = run_seconds(spec_copy(dir, false, true), dir / "cycle", 2, &r4);
  std::printf("  -j 2 with every point at cycle level (SystemC model): %.2f s, %.1f points/s: the analytic search "
              "is %.1fx faster\n", t4, 1000 / t4, t4 / t2);
  const bool same = loom::read_text_file((dir / "j1/points.jsonl").string()) ==
                    loom::read_text_file((dir / "j2/points.jsonl").string());
  std::printf("  -j 1 and -j 2 results identical: %s\n", same ? "yes" : "NO");
  const auto r0 = std::chrono::steady_clock::now();
  loom::write_report_html((dir / "j1").string());  // what `loom report` does
  std::printf("  report.html of the 1,000 points re-rendered (loom report): %.3f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count());
  std::printf("  target: 1,000 points under 60 s on 2 cores: %s (%.1f s)\n", t2 < 60 ? "met" : "MISSED", t2);
  fs::remove_all(dir);
  return same ? 0 : 1;
}
