// One measurement run on one GPU: the launch overhead, every planned sweep run, the
// microbenchmark probes and the cuBLAS references, in that order, each timed with cold
// caches (cold_cache_timer.h) and every kernel checked against loom's CPU reference
// (verification_queue.h). What is finished is saved after every kernel family (the
// partial file, measurement_output.h); the complete file is written at the end.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "validate/measurements.h"
#include "validate/runner/cold_cache_timer.h"
#include "validate/runner/device_info.h"
#include "validate/runner/measurement_output.h"
#include "validate/runner/runner_options.h"
#include "validate/runner/runner_plan.h"
#include "validate/runner/verification_queue.h"

namespace loom::gpu_runner {

class ValidationRun {
 public:
  // The current CUDA device must be `device.index`. Everything passed must outlive the run.
  ValidationRun(const RunnerOptions& options, const RunnerDevice& device, const RunnerPlan& plan,
                const OutputPaths& paths, const std::string& date);

  // Runs the plan and writes the file. Returns the exit code: 0, or 1 after a CUDA error
  // (the finished runs are then in the partial file) or when loom cannot read the written
  // file back.
  int run();

 private:
  struct RunRecord {
    validate::KernelRun run;
    bool done = false;  // timed, and its check reported
  };
  struct ProbeRecord {
    const PlannedProbe* plan = nullptr;
    const RunRecord *small = nullptr, *large = nullptr;
    double value = 0;      // NaN when no figure could be derived
    bool done = false;     // both runs checked and the figure reported
  };

  const RunnerOptions& options_;
  const RunnerDevice& device_;
  const RunnerPlan& plan_;
  OutputPaths paths_;
  std::string date_;
  ColdCacheTimer timer_;

  std::deque<RunRecord> records_;  // a deque: the queue's reports hold pointers into it
  std::vector<const RunRecord*> sweep_runs_;
  std::deque<ProbeRecord> probes_;
  std::vector<validate::LibraryReference> references_;
  double launch_overhead_us_ = 0;
  std::vector<std::string> notes_;  // skipped runs, failed checks: the file's note
  int step_ = 0;
  int failed_checks_ = 0;
  bool read_back_failed_ = false;
  // Last: destroyed first, so no check outlives the records its report would fill in.
  VerificationQueue checks_;

  void measure_launch_overhead();
  void run_probe(const PlannedProbe& probe);
  void run_library_references();
  // Times one launch and queues its check; nullptr when it was skipped (memory).
  const RunRecord* run_kernel(const PlannedLaunch& launch, const std::string& what);
  // Whether `bytes` of buffers fit in 80% of the free device memory; else queues a note.
  bool fits(int64_t bytes, int step, const std::string& what);
  void skip(int step, const std::string& what, const std::string& why);

  validate::MeasurementFile assemble() const;  // everything done so far
  // The partial file; `why` it is partial ("": interrupted, or still running).
  void save_partial(const std::string& why = "");
  void save_final();
  void write(const std::string& path, const validate::MeasurementFile& file);
  std::string final_note() const;
};

}  // namespace loom::gpu_runner
