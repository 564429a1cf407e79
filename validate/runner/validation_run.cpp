#include "validate/runner/validation_run.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "validate/runner/cublas_reference.h"
#include "validate/runner/cuda_check.h"
#include "validate/runner/interrupt_notice.h"
#include "validate/runner/kernel_table.h"
#include "validate/runner/prepared_launch.h"
#include "validate/runner/progress_text.h"

namespace loom::gpu_runner {

namespace {

// A run whose buffers take more than this share of the free device memory is skipped: the
// rest is headroom for the runtime, cuBLAS's workspace and fragmentation.
constexpr double kMemoryShare = 0.8;

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

}  // namespace

ValidationRun::ValidationRun(const RunnerOptions& options, const RunnerDevice& device, const RunnerPlan& plan,
                             const OutputPaths& paths, const std::string& date)
    : options_(options),
      device_(device),
      plan_(plan),
      paths_(paths),
      date_(date),
      timer_(device.info.l2_bytes),
      checks_(default_max_checks(), default_host_budget_bytes()) {}

int ValidationRun::run() {
  std::fprintf(stderr, "loom-gpu-runner: %s (%d SMs, %s L2, SM clock %.0f MHz %s), %d steps, %d warm-ups + %d timed "
                       "launches each; saving to %s\n",
               device_.info.name.c_str(), device_.info.sms, byte_text(device_.info.l2_bytes).c_str(),
               device_.info.sm_clock_mhz, device_.clock_overridden ? "(locked)" : "(peak)", plan_.steps(),
               options_.warmups, options_.repeats, paths_.final_path.c_str());
  set_interrupt_notice(paths_.partial_path);
  try {
    save_partial();
    measure_launch_overhead();
    for (const SweepFamily& family : plan_.sweep) {
      for (const PlannedLaunch& launch : family.runs)
        if (const RunRecord* r = run_kernel(launch, launch_text(launch))) sweep_runs_.push_back(r);
      save_partial();
    }
    for (const PlannedProbe& probe : plan_.probes) {
      run_probe(probe);
      save_partial();
    }
    run_library_references();
    std::fprintf(stderr, "loom-gpu-runner: timing done; waiting for the last output checks\n");
    checks_.drain();
    save_final();
  } catch (const CudaError& e) {
    // The context may be unusable now: keep what finished, stop, say where it is.
    std::fprintf(stderr, "loom-gpu-runner: CUDA error, stopping: %s\n", e.what());
    checks_.drain();
    save_partial(std::string("stopped by a CUDA error: ") + e.what());
    std::fprintf(stderr, "loom-gpu-runner: the runs finished before the error are in %s\n", paths_.partial_path.c_str());
    return 1;
  }
  return read_back_failed_ ? 1 : 0;
}

void ValidationRun::measure_launch_overhead() {
  const int step = ++step_;
  const std::vector<double> times = timer_.time(
      [](cudaStream_t stream) {
        LOOM_CUDA(cudaLaunchKernel(empty_kernel_function(), dim3(1), dim3(1), nullptr, 0, stream));
      },
      options_.warmups, options_.repeats);
  launch_overhead_us_ = validate::summarize_times(times).median_us;
  const std::string line = step_text(step, plan_.steps()) + " launch overhead (empty kernel): " + time_text(launch_overhead_us_);
  checks_.post([line](const simt::VerifyResult*) { std::fprintf(stderr, "%s\n", line.c_str()); });
}

bool ValidationRun::fits(int64_t bytes, int step, const std::string& what) {
  size_t free_bytes = 0, total_bytes = 0;
  LOOM_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double limit = kMemoryShare * static_cast<double>(free_bytes);
  if (static_cast<double>(bytes) <= limit) return true;
  skip(step, what, "needs " + byte_text(bytes) + " of device memory, more than 80% of the " +
                       byte_text(static_cast<int64_t>(free_bytes)) + " free");
  return false;
}

void ValidationRun::skip(int step, const std::string& what, const std::string& why) {
  notes_.push_back("skipped " + what + " (" + why + ")");
  const std::string line = step_text(step, plan_.steps()) + " " + what + ": skipped (" + why + ")";
  checks_.post([line](const simt::VerifyResult*) { std::fprintf(stderr, "%s\n", line.c_str()); });
}

const ValidationRun::RunRecord* ValidationRun::run_kernel(const PlannedLaunch& planned, const std::string& what) {
  const int step = ++step_;
  const simt::LaunchRecipe& recipe = planned.recipe;
  if (!fits(recipe_device_bytes(recipe), step, what)) return nullptr;
  std::optional<PreparedLaunch> launch;
  try {
    launch.emplace(recipe, options_.seed, timer_.stream());
  } catch (const CudaError& e) {
    if (!e.out_of_memory()) throw;
    skip(step, what, "out of device memory");
    return nullptr;
  }
  const std::vector<double> times =
      timer_.time([&](cudaStream_t stream) { launch->launch(stream); }, options_.warmups, options_.repeats);
  // Check what one launch from the initial buffers leaves, exactly as loom's reference
  // assumes, whether or not the kernel's repeated launches would leave the same.
  launch->restore_outputs(timer_.stream());
  launch->launch(timer_.stream());
  LOOM_CUDA(cudaStreamSynchronize(timer_.stream()));
  std::vector<simt::HostBuffer> after = launch->read_back(timer_.stream());
  std::vector<simt::HostBuffer> before = launch->take_initial();
  launch.reset();  // the device memory goes back before the next run

  RunRecord& record = records_.emplace_back();
  record.run.kernel = recipe.kernel;
  record.run.sizes = planned.sizes;
  record.run.grid = recipe.grid;
  record.run.block = recipe.block;
  record.run.time = validate::summarize_times(times);
  const std::string line = step_text(step, plan_.steps()) + " " + what + ": " + time_text(record.run.time.median_us);
  checks_.submit(recipe, std::move(before), std::move(after),
                 [this, &record, line, what](const simt::VerifyResult* result) {
                   record.run.verified = result->ok;
                   record.done = true;
                   if (result->ok) {
                     std::fprintf(stderr, "%s (verified)\n", line.c_str());
                     return;
                   }
                   ++failed_checks_;
                   const std::string detail = std::to_string(result->mismatches) + " of " +
                                              std::to_string(result->checked) + " outputs wrong, first " +
                                              result->first_mismatch;
                   notes_.push_back("failed verification: " + what + ": " + detail);
                   std::fprintf(stderr, "%s (VERIFICATION FAILED)\n", line.c_str());
                   std::fprintf(stderr,
                                "loom-gpu-runner: *** VERIFICATION FAILED: %s: %s; recorded with verified = false "
                                "***\n",
                                what.c_str(), detail.c_str());
                 });
  return &record;
}

void ValidationRun::run_probe(const PlannedProbe& probe) {
  const RunRecord* small = run_kernel(probe.small, probe_launch_text(probe, false));
  const RunRecord* large = run_kernel(probe.large, probe_launch_text(probe, true));
  const std::string& name = probe.def->name;
  if (!small || !large) {
    notes_.push_back("no " + name + " figure (a launch was skipped)");
    return;
  }
  ProbeRecord& record = probes_.emplace_back();
  record.plan = &probe;
  record.small = small;
  record.large = large;
  const double work = validate::work_difference(name, probe.small.sizes, probe.large.sizes);
  record.value = validate::derive_figure(probe.def->quantity, work, small->run.time.median_us,
                                         large->run.time.median_us, device_.info.sm_clock_mhz);
  // Reported after both runs' checks (the queue keeps order).
  checks_.post([this, &record, name](const simt::VerifyResult*) {
    record.done = true;
    const char* unit = validate::quantity_unit(record.plan->def->quantity);
    if (std::isfinite(record.value) && record.value > 0) {
      std::fprintf(stderr, "         %s = %.4g %s\n", name.c_str(), record.value, unit);
    } else {
      notes_.push_back("no " + name + " figure (the large launch was not slower than the small one)");
      std::fprintf(stderr, "         %s: no figure (the large launch was not slower than the small one)\n",
                   name.c_str());
    }
  });
}

void ValidationRun::run_library_references() {
  if (plan_.library_sizes.empty()) return;
  std::optional<CublasReferences> cublas;
  try {
    cublas.emplace(timer_.stream());
  } catch (const CudaError&) {
    throw;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "loom-gpu-runner: cuBLAS unavailable, no library references: %s\n", e.what());
    notes_.push_back(std::string("no cuBLAS references: ") + e.what());
    step_ += 2 * static_cast<int>(plan_.library_sizes.size());
    return;
  }
  for (const int64_t n : plan_.library_sizes)
    for (const LibraryGemm kind : {LibraryGemm::sgemm, LibraryGemm::hgemm_tensor_op}) {
      const int step = ++step_;
      const std::string what = library_text(library_gemm_name(kind), n);
      if (!fits(library_gemm_bytes(kind, n), step, what)) continue;
      validate::LibraryReference ref;
      try {
        ref = cublas->time_gemm(kind, n, timer_, options_.warmups, options_.repeats, options_.seed);
      } catch (const CudaError& e) {
        if (!e.out_of_memory()) throw;
        skip(step, what, "out of device memory");
        continue;
      } catch (const std::runtime_error& e) {  // a cuBLAS status: the CUDA context is fine
        skip(step, what, std::string("cuBLAS failed: ") + e.what());
        continue;
      }
      references_.push_back(ref);
      char rate[64];
      std::snprintf(rate, sizeof rate, ", %.1f TFLOP/s", ref.flops / (ref.time.median_us * 1e6));
      const std::string line = step_text(step, plan_.steps()) + " " + what + ": " + time_text(ref.time.median_us) + rate;
      checks_.post([line](const simt::VerifyResult*) { std::fprintf(stderr, "%s\n", line.c_str()); });
    }
  save_partial();
}

validate::MeasurementFile ValidationRun::assemble() const {
  validate::MeasurementFile f;
  f.origin = validate::Origin::measured;
  f.date = date_;
  f.device = device_.info;
  f.warmups = options_.warmups;
  f.repeats = options_.repeats;
  f.launch_overhead_us = launch_overhead_us_;
  for (const RunRecord* r : sweep_runs_)
    if (r->done) f.kernels.push_back(r->run);
  for (const ProbeRecord& p : probes_) {
    if (!p.done || !std::isfinite(p.value) || p.value <= 0) continue;
    validate::Microbenchmark m;
    m.name = p.plan->def->name;
    m.value = p.value;
    m.unit = validate::quantity_unit(p.plan->def->quantity);
    m.runs = {p.small->run, p.large->run};
    f.microbenchmarks.push_back(std::move(m));
  }
  f.references = references_;
  return f;
}

void ValidationRun::write(const std::string& path, const validate::MeasurementFile& file) {
  const std::string problem = write_measurement_file(path, file);
  if (problem.empty() || read_back_failed_) return;
  read_back_failed_ = true;  // said once; the exit code says it again
  std::fprintf(stderr, "loom-gpu-runner: internal error: loom cannot read %s back: %s (please report this bug)\n",
               path.c_str(), problem.c_str());
}

void ValidationRun::save_partial(const std::string& why) {
  checks_.report_finished();
  validate::MeasurementFile f = assemble();
  f.note = "partial: " + (why.empty() ? std::string("interrupted, or still running") : why) + "; " +
           std::to_string(step_) + " of " + std::to_string(plan_.steps()) +
           " steps timed, and the runs among them whose output check had finished are recorded";
  write(paths_.partial_path, f);
}

std::string ValidationRun::final_note() const {
  std::vector<std::string> parts;
  parts.push_back(device_.clock_overridden
                      ? "sm_clock_mhz is the locked clock given with --sm-clock-mhz"
                      : "sm_clock_mhz is the device's peak clock (no --sm-clock-mhz; the GPU may have run slower)");
  if (options_.quick) parts.push_back("quick sweep (--quick)");
  if (!options_.kernels.empty()) parts.push_back("only --kernels " + join(options_.kernels, ","));
  parts.insert(parts.end(), notes_.begin(), notes_.end());
  return join(parts, "; ");
}

void ValidationRun::save_final() {
  validate::MeasurementFile f = assemble();
  f.note = final_note();
  write(paths_.final_path, f);
  std::error_code ignored;
  std::filesystem::remove(paths_.partial_path, ignored);
  std::fprintf(stderr, "loom-gpu-runner: wrote %s: %zu kernel runs, %zu microbenchmarks, %zu cuBLAS references\n",
               paths_.final_path.c_str(), f.kernels.size(), f.microbenchmarks.size(), f.references.size());
  if (failed_checks_ > 0)
    std::fprintf(stderr, "loom-gpu-runner: *** %d run(s) FAILED verification (recorded with verified = false) ***\n",
                 failed_checks_);
}

}  // namespace loom::gpu_runner
