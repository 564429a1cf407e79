// Mapper benchmark (docs/performance.md, "Mapper"):
//  (a) analytic cost-model evaluations per second on one core: random mappings (valid and
//      over capacity) of a ResNet-50 3x3 layer on configs/eyeriss_like_rs.json. Target
//      >= 1,000,000/s.
//  (b) every distinct ResNet-50 layer shape mapped onto that config under its dataflow (rs)
//      with the default search (SearchMethod::automatic), timed, and compared with the best
//      EDP an exhaustive search of the same map space finds. Targets: every layer within 1%,
//      all layers in under 30 s.
// `loom_bench mapper [--no-reference] [--threads N]`; threads default to the CPUs this
// process may run on.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "arch/hierarchy/hierarchy_config.h"
#include "bench/bench.h"
#include "mapper/constraints.h"
#include "mapper/cost_model.h"
#include "mapper/network_mapper.h"
#include "mapper/search.h"
#include "workloads/network.h"

#ifdef __linux__
#include <sched.h>
#endif

using namespace loom;

namespace {

int usable_cpus() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A random mapping: each prime factor of each loop in a uniformly random slot (any level's
// temporal loops, or a fan-out axis with room left), random loop orders. Nothing checks
// capacity, so part of them do not fit: the model must reject those cheaply too.
Mapping random_mapping(const Problem& p, const HierarchyConfig& arch, std::mt19937_64& rng) {
  const int L = arch.num_levels();
  Mapping m;
  m.num_levels = L;
  std::vector<int64_t> xp(L, 1), yp(L, 1);
  for (int d = 0; d < kNumDims; ++d) {
    int64_t v = p.bound[d];
    for (int64_t f = 2; v > 1; ++f)
      while (v % f == 0) {
        v /= f;
        for (;;) {
          const int slot = static_cast<int>(rng() % static_cast<uint64_t>(3 * L));
          const int l = slot / 3;
          if (slot % 3 == 0) {
            m.levels[l].temporal[d] *= f;
          } else if (slot % 3 == 1) {
            if (xp[l] * f > arch.levels[l].fanout.x) continue;
            xp[l] *= f, m.levels[l].spatial_x[d] *= f;
          } else {
            if (yp[l] * f > arch.levels[l].fanout.y) continue;
            yp[l] *= f, m.levels[l].spatial_y[d] *= f;
          }
          break;
        }
      }
  }
  for (int l = 0; l < L; ++l) std::shuffle(m.levels[l].order.begin(), m.levels[l].order.end(), rng);
  return m;
}

// Evaluations per second over `pool`, repeated for about `seconds`; median of 5 runs.
double evals_per_second(const Problem& p, const HierarchyConfig& arch, const std::vector<Mapping>& pool,
                        double seconds, double* checksum) {
  std::vector<double> rates;
  for (int run = 0; run < 5; ++run) {
    int64_t n = 0;
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      for (const Mapping& m : pool) {
        const Cost c = evaluate(p, arch, m);
        if (c.valid) *checksum += c.edp();
      }
      n += static_cast<int64_t>(pool.size());
      elapsed = seconds_since(t0);
    } while (elapsed < seconds / 5);
    rates.push_back(static_cast<double>(n) / elapsed);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

std::string shape_of(const Problem& p) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "K%lld C%lld P%lld Q%lld R%lld S%lld /%lld", static_cast<long long>(p.bound[kDimK]),
                static_cast<long long>(p.bound[kDimC]), static_cast<long long>(p.bound[kDimP]),
                static_cast<long long>(p.bound[kDimQ]), static_cast<long long>(p.bound[kDimR]),
                static_cast<long long>(p.bound[kDimS]), static_cast<long long>(p.stride_h));
  return buf;
}

}  // namespace

int bench_mapper(const std::vector<std::string>& args) {
  bool reference = true;
  int threads = usable_cpus();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--no-reference") {
      reference = false;
    } else if (args[i] == "--threads" && i + 1 < args.size()) {
      threads = std::max(1, std::atoi(args[++i].c_str()));
    } else {
      std::fprintf(stderr, "usage: loom_bench mapper [--no-reference] [--threads N]\n");
      return 2;
    }
  }
  const std::string root = LOOM_SOURCE_DIR;
  const HierarchyConfig arch = load_hierarchy_config(root + "/configs/eyeriss_like_rs.json");
  const Network network = load_workload(root + "/workloads/networks/resnet50.json");

  // (a) evaluations per second, one core.
  const Layer* probe = nullptr;
  for (const Layer& l : network.layers)
    if (l.name == "layer2.1.conv2") probe = &l;
  if (!probe) probe = &network.layers.front();
  const Problem pp = problem_of(*probe, arch.im2col);
  std::mt19937_64 rng(2026);
  std::vector<Mapping> mixed, valid;
  while (mixed.size() < 4096 || valid.size() < 4096) {
    const Mapping m = random_mapping(pp, arch, rng);
    const bool ok = evaluate(pp, arch, m).valid;
    if (mixed.size() < 4096) mixed.push_back(m);
    if (ok && valid.size() < 4096) valid.push_back(m);
  }
  int64_t mixed_valid = 0;
  for (const Mapping& m : mixed) mixed_valid += evaluate(pp, arch, m).valid ? 1 : 0;
  double checksum = 0;
  const double rate_mixed = evals_per_second(pp, arch, mixed, 2.0, &checksum);
  const double rate_valid = evals_per_second(pp, arch, valid, 2.0, &checksum);
  std::printf("benchmark: mapper on %s (%s, dataflow %s)\n", arch.name.c_str(), arch.source_file.c_str(),
              arch.dataflow.c_str());
  std::printf("  (a) cost-model evaluations, one thread, %s (%s):\n", probe->name.c_str(), shape_of(pp).c_str());
  std::printf("      random mappings, %lld of 4096 fit: %.2e evaluations/s\n", static_cast<long long>(mixed_valid),
              rate_mixed);
  std::printf("      valid mappings only:        %.2e evaluations/s\n", rate_valid);
  std::printf("      target >= 1e6/s -> %s   (checksum %.3e)\n",
              std::min(rate_mixed, rate_valid) >= 1e6 ? "met" : "NOT met", checksum);

  // (b) every distinct layer shape, default search vs exhaustive.
  struct Row {
    std::string name, shape;
    int repeats = 1;
    SearchResult def, ex;
  };
  std::vector<Row> rows;
  std::vector<Problem> shapes;
  for (const Layer& l : network.layers) {
    const Problem p = problem_of(l, arch.im2col);
    bool seen = false;
    for (size_t i = 0; i < shapes.size() && !seen; ++i)
      if (same_shape(shapes[i], p)) ++rows[i].repeats, seen = true;
    if (seen) continue;
    shapes.push_back(p);
    rows.push_back({l.name, shape_of(p), 1, {}, {}});
  }
  std::printf("  (b) ResNet-50: %zu layers, %zu distinct shapes; default search (%s), %d thread%s; "
              "gap = EDP / exhaustive EDP - 1\n",
              network.layers.size(), shapes.size(), name_of(SearchOptions{}.method), threads, threads == 1 ? "" : "s");
  std::printf("      %-20s %-30s %3s %-10s %10s %8s %12s %9s %8s\n", "layer", "shape K C P Q R S /stride", "x",
              "method", "evaluated", "time s", "EDP", "gap", "exh. s");
  double total_default = 0, total_ex = 0, worst_gap = 0;
  int64_t total_evals = 0, total_ex_evals = 0;
  int within = 0, compared = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row& r = rows[i];
    const Problem& p = shapes[i];
    const MappingConstraints c = constraints_for(arch.dataflow, p, arch, arch.source_file);
    SearchOptions o;
    o.threads = threads;
    r.def = search_mappings(p, arch, c, o);
    total_default += r.def.seconds;
    total_evals += r.def.evaluated;
    std::string gap = "-", ex_s = "-";
    if (reference) {
      SearchOptions e = o;
      e.method = SearchMethod::exhaustive;
      r.ex = search_mappings(p, arch, c, e);
      total_ex += r.ex.seconds;
      total_ex_evals += r.ex.evaluated;
      if (r.ex.found && r.def.found) {
        const double g = r.def.cost.edp() / r.ex.cost.edp() - 1;
        worst_gap = std::max(worst_gap, g);
        within += g <= 0.01 ? 1 : 0;
        ++compared;
        char b[32];
        std::snprintf(b, sizeof b, "%.4f%%", 100 * g);
        gap = b;
        std::snprintf(b, sizeof b, "%.2f", r.ex.seconds);
        ex_s = b;
      }
    }
    std::printf("      %-20s %-30s %3d %-10s %10lld %8.3f %12.4e %9s %8s\n", r.name.c_str(), r.shape.c_str(), r.repeats,
                name_of(r.def.method_used), static_cast<long long>(r.def.evaluated), r.def.seconds,
                r.def.found ? r.def.cost.edp() : 0.0, gap.c_str(), ex_s.c_str());
    std::fflush(stdout);
  }
  std::printf("      total: default search %.2f s (%lld candidates), target < 30 s -> %s\n", total_default,
              static_cast<long long>(total_evals), total_default < 30 ? "met" : "NOT met");
  if (reference)
    std::printf("      exhaustive reference %.1f s (%lld candidates, %.2e/s); %d of %d shapes within 1%%, worst gap "
                "%.4f%% -> %s\n",
                total_ex, static_cast<long long>(total_ex_evals),
                total_ex > 0 ? static_cast<double>(total_ex_evals) / total_ex : 0.0, within, compared,
                100 * worst_gap, within == compared ? "met" : "NOT met");
  return 0;
}
