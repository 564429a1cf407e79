// Limits benchmark: the largest shipped cases and the cases at loom's limits, each in its own
// forked child so that each one's peak RSS (wait4's ru_maxrss) is its own, with its wall
// time and what happened (ran, or refused with which message). The limits and why each has
// its value: layer_plan.h (systolic folds and cycles), network_mapper.h (hierarchy cycles),
// simt_limits.h (SIMT), sweep_spec.h (sweep points), network.h (network MACs); the figures:
// docs/reliability.md. Arguments: [--quick] (skip the SIMT cycle-level network, ~10 s).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "arch/architecture.h"
#include "bench/bench.h"
#include "mapper/network_evaluation.h"
#include "sim/error.h"
#include "sim/json_reader.h"
#include "sim/text_file.h"
#include "sweep/sweep_runner.h"
#include "workloads/network.h"

namespace {

namespace fs = std::filesystem;
const std::string kSrc = LOOM_SOURCE_DIR;

struct Case {
  std::string name;
  std::function<std::string()> run;  // what happened, one line; throws InputError when refused
};

// Runs `c` in a child; prints its outcome, wall time and peak RSS.
void measure(const Case& c) {
  int fds[2];
  if (::pipe(fds) != 0) return;
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string outcome;
    try {
      outcome = "ran: " + c.run();
    } catch (const loom::InputError& e) {
      outcome = std::string("refused: ") + e.what();
    } catch (const std::exception& e) {
      outcome = std::string("FAILED: ") + e.what();
    }
    (void)!::write(fds[1], outcome.data(), outcome.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string outcome;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) outcome.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (outcome.size() > 160) outcome = outcome.substr(0, 157) + "...";
  std::printf("  %-58s %9.3f s %9.1f MiB  %s\n", c.name.c_str(), seconds, usage.ru_maxrss / 1024.0, outcome.c_str());
}

std::string evaluate(const std::string& arch, const std::string& workload, loom::Fidelity fidelity,
                     const std::string& precision = "fp16") {
  const loom::Architecture a = loom::load_architecture(arch);
  const loom::Network n = loom::load_workload(workload);
  loom::EvaluationOptions options;
  options.gpu_precision = precision;
  const loom::NetworkEvaluation e = loom::evaluate_network(a, n, fidelity, options);
  const loom::LayerEvaluation t = e.totals();
  return loom::with_commas(static_cast<int64_t>(n.layers.size())) + " layers, " + loom::with_commas(t.macs) +
         " MACs, " + loom::with_commas(t.cycles) + " cycles";
}

std::string write_json(const fs::path& dir, const std::string& name, const loom::Json& doc) {
  const std::string path = (dir / name).string();
  loom::write_file_atomically(path, doc.dump(1));
  return path;
}

loom::Json gemm_network(const std::string& name, int64_t m, int64_t n, int64_t k) {
  loom::Json layer = {{"name", "g"}, {"type", "gemm"}, {"m", m}, {"n", n}, {"k", k}};
  return {{"schema", "loom-network/1"}, {"name", name}, {"layers", loom::Json::array({layer})}};
}

// Plans a sweep and stops before its first point runs: the memory of planning and of the
// results log at `spec`'s size.
std::string plan_sweep(const std::string& spec, const fs::path& out) {
  loom::SweepRunOptions o;
  o.spec_file = spec;
  o.out_dir = out.string();
  o.quiet = true;
  int64_t handed = 0;
  o.executor = [&](const std::vector<std::string>& requests, const loom::WorkerPool::OnReply&,
                   const std::atomic<bool>&, const std::function<void()>&) {
    handed = static_cast<int64_t>(requests.size());
    return false;  // as if interrupted at once
  };
  std::atomic<bool> stop{false};
  const loom::SweepOutcome r = loom::run_sweep(o, stop);
  return loom::with_commas(r.planned) + " points planned, the first " + loom::with_commas(handed) +
         " handed to the workers, then stopped";
}

}  // namespace

int bench_limits(const std::vector<std::string>& args) {
  const bool quick = !args.empty() && args[0] == "--quick";
  const fs::path dir = fs::temp_directory_path() / ("loom_bench_limits_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);

  loom::Json one_pe = loom::load_json_file(kSrc + "/configs/systolic_32x32_os.json");
  one_pe["name"] = "systolic_1x1_os";
  one_pe["array"]["rows"] = one_pe["array"]["cols"] = 1;
  one_pe["energy_table"] = kSrc + "/configs/energy/horowitz_45nm.json";
  const std::string one = write_json(dir, "systolic_1x1_os.json", one_pe);
  loom::Json eyeriss = loom::load_json_file(kSrc + "/configs/eyeriss_like_rs.json");
  eyeriss["name"] = "eyeriss_4096x4096";
  eyeriss["energy_table"] = kSrc + "/configs/energy/eyeriss_relative.json";
  eyeriss["levels"][1]["fanout"]["x"] = eyeriss["levels"][1]["fanout"]["y"] = 4096;
  const std::string hier4096 = write_json(dir, "eyeriss_4096.json", eyeriss);
  const std::string folds_1e7 = write_json(dir, "folds1e7.json", gemm_network("folds1e7", 1000, 10000, 1));
  const std::string gemm_1e12 = write_json(dir, "gemm1e12.json", gemm_network("gemm1e12", 10000, 10000, 10000));
  const auto sweep_spec = [&](const std::string& name, bool one_more) {
    loom::Json parameters = {{"array.rows", {{"from", 1}, {"to", 100}, {"step", 1}}},
                             {"array.cols", {{"from", 1}, {"to", 100}, {"step", 1}}},
                             {"dram.bandwidth_bytes_per_cycle", {{"from", 1}, {"to", 1000}, {"step", 1}}}};
    if (one_more) parameters["sram.ifmap_kib"] = {64, 128};
    return write_json(dir, name + ".json",
                      {{"schema", "loom-sweep/1"}, {"name", name}, {"base", kSrc + "/configs/systolic_32x32_ws.json"},
                       {"parameters", parameters}, {"workloads", {kSrc + "/workloads/networks/lenet5.json"}},
                       {"objectives", {"latency", "energy"}}, {"strategy", {{"kind", "grid"}}}});
  };
  const std::string grid_1e7 = sweep_spec("grid1e7", false), grid_2e7 = sweep_spec("grid2e7", true);

  const std::string c = kSrc + "/configs/", w = kSrc + "/workloads/networks/";
  using loom::Fidelity;
  std::vector<Case> cases = {
      {"systolic cycle: ResNet-50, 128x128 WS (default)",
       [&] { return evaluate(c + "systolic_128x128_ws.json", w + "resnet50.json", Fidelity::cycle); }},
      {"systolic cycle: VGG-16, 128x128 WS (largest shipped network)",
       [&] { return evaluate(c + "systolic_128x128_ws.json", w + "vgg16.json", Fidelity::cycle); }},
      {"systolic cycle: VGG-16, 12x14 (most folds shipped, 826k)",
       [&] { return evaluate(c + "eyeriss_12x14.json", w + "vgg16.json", Fidelity::cycle); }},
      {"systolic cycle: 10^7 folds on 1x1 OS (the fold limit)",
       [&] { return evaluate(one, folds_1e7, Fidelity::cycle); }},
      {"systolic analytic: 10^7 folds on 1x1 OS (the fold limit)",
       [&] { return evaluate(one, folds_1e7, Fidelity::analytic); }},
      {"systolic cycle: 10^12-MAC GEMM on 1x1 OS", [&] { return evaluate(one, gemm_1e12, Fidelity::cycle); }},
      {"hierarchy: ResNet-50 on eyeriss_like_rs (mapped)",
       [&] { return evaluate(c + "eyeriss_like_rs.json", w + "resnet50.json", Fidelity::analytic); }},
      {"hierarchy: 10^12-MAC GEMM, 4096x4096 fan-out (mapped)",
       [&] { return evaluate(hier4096, gemm_1e12, Fidelity::analytic); }},
      {"gpu analytic: VGG-16 FP32 on V100",
       [&] { return evaluate(c + "v100.json", w + "vgg16.json", Fidelity::analytic, "fp32"); }},
      {"gpu cycle: 10^12-MAC GEMM on V100", [&] { return evaluate(c + "v100.json", gemm_1e12, Fidelity::cycle); }},
      {"sweep: plan a 10^7-point grid (the limit)", [&] { return plan_sweep(grid_1e7, dir / "sweep1e7"); }},
      {"sweep: a 2 x 10^7-point grid", [&] { return plan_sweep(grid_2e7, dir / "sweep2e7"); }},
  };
  if (!quick) {
    cases.push_back({"gpu cycle: ResNet-50 FP16 on V100 (SIMT model)",
                     [&] { return evaluate(c + "v100.json", w + "resnet50.json", Fidelity::cycle); }});
  }
  std::printf("limits: each case in its own process; wall time and peak RSS (wait4 ru_maxrss)\n");
  std::printf("  %-58s %11s %13s  %s\n", "case", "wall", "peak RSS", "outcome");
  for (const Case& k : cases) measure(k);
  fs::remove_all(dir);
  return 0;
}
