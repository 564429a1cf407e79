#include "validate/comparison.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/launch_limits.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "sim/error.h"
#include "validate/device_match.h"
#include "validate/microbenchmarks.h"
#include "validate/published_figures.h"
#include "validate/statistics.h"

namespace loom::validate {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool is_gemm(const std::string& kernel) { return kernel == "naive_gemm" || kernel == "tiled_gemm" || kernel == "wmma_gemm"; }

// How much simulation a launch is, for extrapolating the simulated warp instructions from a
// smaller launch of the same kernel: its threads plus its useful work (FLOPs, compulsory bytes).
double launch_work(const simt::LaunchRecipe& r) {
  return static_cast<double>(r.grid.count() * r.block.count()) + r.flops + static_cast<double>(r.compulsory_bytes);
}

// Simulates launches once each (probes and sweeps may share one) and remembers what each
// kernel cost, to skip launches that would blow the budget. The cost is counted in simulated
// warp instructions, not measured in wall seconds, so which launches run depends only on the
// inputs: a loaded machine gives the same report as an idle one.
class LaunchSimulator {
 public:
  LaunchSimulator(const simt::GpuConfig& config, const ValidationOptions& options) : config_(config), options_(options) {}

  struct Outcome {
    bool simulated = false;
    std::string skipped;
    int64_t cycles = 0;
    double wall_s = 0;
  };

  Outcome run(const std::string& kernel, const SizeMap& sizes) {
    const std::string key = kernel + " " + simt::format_size_list(kernel, sizes);
    if (auto it = done_.find(key); it != done_.end()) return it->second;
    const simt::LaunchRecipe recipe = simt::make_launch_recipe(kernel, sizes, "sizes");
    const double work = launch_work(recipe);
    Outcome out;
    if (auto it = cost_.find(kernel); options_.budget_s > 0 && it != cost_.end() && work > it->second.work) {
      const double instructions = it->second.warp_instructions * work / it->second.work;
      const double estimate = instructions / kBudgetWarpInstructionsPerSecond;
      if (estimate > options_.budget_s) {
        char why[160];
        std::snprintf(why, sizeof why,
                      "estimated %.3g M warp instructions, %.3g s to simulate at a nominal %.3g M/s, over the "
                      "budget of %.3g s (--budget)",
                      instructions / 1e6, estimate, kBudgetWarpInstructionsPerSecond / 1e6, options_.budget_s);
        out.skipped = why;
        done_[key] = out;
        return out;
      }
    }
    // A real GPU runs launches loom does not simulate (the runner's sweeps reach 3 GiB of
    // buffers): such a run is skipped with the limit it exceeds, not the whole comparison.
    try {
      simt::check_launch_limits(recipe, config_);
    } catch (const InputError& e) {
      out.skipped = "beyond loom's limits: " + e.expected();
      done_[key] = out;
      return out;
    }
    simt::RecipeRunOptions run_options;
    run_options.seed = options_.seed;
    run_options.verify = false;  // the runner checked the GPU's output; the model's is checked by the tests
    const auto start = Clock::now();
    const simt::RecipeRunResult result = simt::run_recipe(recipe, simt::shipped_kernel(kernel), config_, run_options);
    out.simulated = true;
    out.cycles = result.stats.cycles;
    out.wall_s = seconds_since(start);
    Cost& c = cost_[kernel];
    if (work >= c.work) c = {work, static_cast<double>(std::max<int64_t>(result.stats.warp_instructions, 1))};
    done_[key] = out;
    if (options_.progress)
      options_.progress(kernel + " " + simt::format_size_list(kernel, sizes) + ": " + std::to_string(out.cycles) + " cycles (" +
                        std::to_string(out.wall_s).substr(0, 5) + " s)");
    return out;
  }

  double microseconds(int64_t cycles) const { return static_cast<double>(cycles) / config_.clock_hz * 1e6; }

 private:
  struct Cost {
    double work = 0, warp_instructions = 0;
  };
  const simt::GpuConfig& config_;
  const ValidationOptions& options_;
  std::map<std::string, Outcome> done_;
  std::map<std::string, Cost> cost_;
};

void check_device(const simt::GpuConfig& config, const MeasurementFile& m, const ValidationOptions& options,
                  std::vector<std::string>& warnings) {
  if (!same_gpu_model(config.name, m.device.name)) {
    const std::string what = config.source_file + " models \"" + config.name + "\" but " + m.path +
                             " was recorded on \"" + m.device.name + "\"";
    if (!options.allow_device_mismatch)
      throw InputError(m.path, "device.name",
                       "the GPU the config models (" + what + "; pass --allow-device-mismatch to compare anyway)");
    warnings.push_back(what + ": compared anyway (--allow-device-mismatch)");
  }
  if (m.device.sms > 0 && m.device.sms != config.sms)
    warnings.push_back("the device has " + std::to_string(m.device.sms) + " SMs, the config " +
                       std::to_string(config.sms));
  if (m.device.sm_clock_mhz > 0 && std::fabs(m.device.sm_clock_mhz * 1e6 - config.clock_hz) > 0.02 * config.clock_hz)
    warnings.push_back("the device's SM clock was " + std::to_string(static_cast<int64_t>(m.device.sm_clock_mhz)) +
                       " MHz, the config's is " + std::to_string(static_cast<int64_t>(config.clock_hz / 1e6)) +
                       " MHz: times differ by that ratio before any modelling error");
}

std::vector<RunComparison> compare_runs(const MeasurementFile& m, const ValidationOptions& options,
                                        LaunchSimulator& sim) {
  std::set<std::string> wanted(options.kernels.begin(), options.kernels.end());
  for (const std::string& k : wanted) {
    const bool present =
        std::any_of(m.kernels.begin(), m.kernels.end(), [&](const KernelRun& r) { return r.kernel == k; });
    if (!present) throw InputError(m.path, "--kernels", "kernels the file has runs of; it has none of \"" + k + "\"");
  }
  // Smallest launches of each kernel first, so larger ones can be skipped by extrapolation.
  std::vector<size_t> order;
  std::vector<double> work(m.kernels.size());  // each recipe built once, not per comparison
  for (size_t i = 0; i < m.kernels.size(); ++i)
    if (wanted.empty() || wanted.count(m.kernels[i].kernel)) {
      order.push_back(i);
      work[i] = launch_work(simt::make_launch_recipe(m.kernels[i].kernel, m.kernels[i].sizes));
    }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const std::string &ka = m.kernels[a].kernel, &kb = m.kernels[b].kernel;
    return ka != kb ? ka < kb : work[a] < work[b];
  });
  std::vector<RunComparison> out;
  for (size_t i : order) {
    RunComparison c;
    c.measured = m.kernels[i];
    const LaunchSimulator::Outcome o = sim.run(c.measured.kernel, c.measured.sizes);
    c.simulated = o.simulated;
    c.skipped = o.skipped;
    c.cycles = o.cycles;
    c.wall_s = o.wall_s;
    if (o.simulated) {
      // CUDA events around a launch include the launch itself; the runner measured that on
      // an empty kernel, and it is added so both sides time the same thing.
      c.simulated_us = sim.microseconds(o.cycles) + m.launch_overhead_us;
      c.error = relative_error(c.measured.time.median_us, c.simulated_us);
    }
    out.push_back(c);
  }
  return out;
}

Agreement agree(const std::string& group, const std::vector<const RunComparison*>& runs) {
  Agreement a;
  a.group = group;
  std::vector<double> measured, simulated;
  for (const RunComparison* r : runs) {
    measured.push_back(r->measured.time.median_us);
    simulated.push_back(r->simulated_us);
  }
  a.points = static_cast<int>(runs.size());
  a.mape = mean_absolute_percentage_error(measured, simulated);
  a.pearson = pearson_correlation(measured, simulated);
  return a;
}

std::vector<Agreement> agreement_by_group(const std::vector<RunComparison>& runs) {
  std::map<std::string, std::vector<const RunComparison*>> by_kernel;
  std::vector<const RunComparison*> gemm, all;
  for (const RunComparison& r : runs) {
    if (!r.simulated) continue;
    by_kernel[r.measured.kernel].push_back(&r);
    if (is_gemm(r.measured.kernel)) gemm.push_back(&r);
    all.push_back(&r);
  }
  std::vector<Agreement> out;
  for (const auto& [kernel, list] : by_kernel) out.push_back(agree(kernel, list));
  out.push_back(agree("gemm", gemm));
  out.push_back(agree("all", all));
  return out;
}

std::vector<MicrobenchmarkComparison> compare_microbenchmarks(const simt::GpuConfig& config,
                                                              const MeasurementFile& m, LaunchSimulator& sim) {
  const ProbeTarget target{config.sms, config.max_threads_per_sm, config.l2_bytes};
  std::vector<MicrobenchmarkComparison> out;
  for (const Microbenchmark& mb : m.microbenchmarks) {
    const MicrobenchmarkDef& def = *find_microbenchmark(mb.name);
    // The measured probe's own sizes when the file has them; else loom's probe for this GPU.
    Probe probe = make_probe(mb.name, target);
    if (mb.runs.size() == 2) {
      probe.small = mb.runs[0].sizes;
      probe.large = mb.runs[1].sizes;
    }
    MicrobenchmarkComparison c{mb.name, mb.unit, mb.value, std::nan(""), 0, mb.source, mb.note};
    const LaunchSimulator::Outcome small = sim.run(probe.kernel, probe.small);
    const LaunchSimulator::Outcome large = sim.run(probe.kernel, probe.large);
    if (small.simulated && large.simulated) {
      const double work = work_difference(mb.name, probe.small, probe.large);
      c.simulated = derive_figure(def.quantity, work, sim.microseconds(small.cycles), sim.microseconds(large.cycles),
                                  config.clock_hz / 1e6);
      c.error = relative_error(c.measured, c.simulated);
    }
    out.push_back(c);
  }
  return out;
}

std::vector<FigureComparison> compare_figures(const simt::GpuConfig& config, const MeasurementFile& m) {
  std::vector<FigureComparison> out;
  for (const PublishedFigure& p : m.figures) {
    FigureComparison c{p, std::nullopt, "", 0};
    c.loom = loom_figure(p.name, config, c.why_not);
    if (c.loom) {
      const double v = *c.loom;
      c.error = v < p.low ? relative_error(p.low, v) : v > p.high ? relative_error(p.high, v) : 0.0;
    }
    out.push_back(c);
  }
  return out;
}

// The targets (docs/validation.md, "Targets"): GEMM kernels within 10% mean absolute
// error and correlation >= 0.95; the whole suite within 15%; microbenchmarks within 10%.
std::vector<Target> check_targets(const ValidationReport& r) {
  std::vector<Target> t;
  const Agreement* gemm = nullptr;
  const Agreement* all = nullptr;
  for (const Agreement& a : r.agreement) {
    if (a.group == "gemm") gemm = &a;
    if (a.group == "all") all = &a;
  }
  if (gemm && gemm->points > 0) {
    t.push_back({"GEMM kernels: mean absolute error of kernel time", "<= 10%", gemm->mape, gemm->mape && *gemm->mape <= 10});
    t.push_back({"GEMM kernels: Pearson correlation of kernel time", ">= 0.95", gemm->pearson,
                 gemm->pearson && *gemm->pearson >= 0.95});
  }
  if (all && all->points > 0)
    t.push_back({"whole suite: mean absolute error of kernel time", "<= 15%", all->mape, all->mape && *all->mape <= 15});
  for (const MicrobenchmarkComparison& mb : r.microbenchmarks) {
    const MicrobenchmarkDef& def = *find_microbenchmark(mb.name);
    if (def.quantity != Quantity::latency_cycles) continue;
    const std::optional<double> e =
        std::isnan(mb.simulated) ? std::nullopt : std::optional<double>(100 * std::fabs(mb.error));
    t.push_back({"microbenchmark " + mb.name + ": error", "<= 10%", e, e && *e <= 10});
  }
  return t;
}

}  // namespace

ValidationReport run_validation(const simt::GpuConfig& config, const MeasurementFile& measured,
                                const ValidationOptions& options) {
  const auto start = Clock::now();
  ValidationReport r;
  r.config_name = config.name;
  r.config_file = config.source_file;
  r.measured = measured;
  check_device(config, measured, options, r.warnings);
  if (measured.origin == Origin::published)
    r.warnings.push_back(measured.path + " holds published figures, not loom's own measurements");
  LaunchSimulator sim(config, options);
  r.runs = compare_runs(measured, options, sim);
  for (const RunComparison& c : r.runs)
    if (!c.measured.verified && measured.origin == Origin::measured)
      r.warnings.push_back(c.measured.kernel + " " + simt::format_size_list(c.measured.kernel, c.measured.sizes) +
                           ": the GPU's output did not pass the CPU reference check when it was measured");
  r.agreement = agreement_by_group(r.runs);
  if (options.kernels.empty()) {
    r.microbenchmarks = compare_microbenchmarks(config, measured, sim);
    r.figures = compare_figures(config, measured);
  }
  r.targets = check_targets(r);
  r.wall_s = seconds_since(start);
  return r;
}

}  // namespace loom::validate
