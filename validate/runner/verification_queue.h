// Checks kernel outputs against loom's CPU reference (kernel_reference.h: verify_outputs)
// on background threads while the GPU goes on timing the next runs: the reference of an
// 8192^3 GEMM takes minutes on one core, far longer than timing it. Results are reported
// in submission order, on the caller's thread, so progress lines come out in plan order
// and the callbacks need no locking. At most `max_checks` checks run at once, and they
// hold at most `host_budget_bytes` of host memory between them (one runs whatever its size).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <vector>

#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/kernel_reference.h"

namespace loom::gpu_runner {

class VerificationQueue {
 public:
  // Called with the check's result, or with nullptr for an entry that checks nothing.
  using Report = std::function<void(const simt::VerifyResult*)>;

  VerificationQueue(int max_checks, int64_t host_budget_bytes);
  ~VerificationQueue();  // waits for the checks still running, reporting nothing
  VerificationQueue(const VerificationQueue&) = delete;
  VerificationQueue& operator=(const VerificationQueue&) = delete;

  // Starts checking `after` (every buffer read back) against the reference computed from
  // `before`. Blocks, reporting the oldest entries, while the queue is full.
  void submit(simt::LaunchRecipe recipe, std::vector<simt::HostBuffer> before, std::vector<simt::HostBuffer> after,
              Report report);
  // An entry with nothing to check (a skipped run, a derived figure), reported in order.
  void post(Report report);
  // Reports the entries at the front that are finished, without waiting.
  void report_finished();
  // Waits for every entry and reports it.
  void drain();

 private:
  struct Entry {
    std::future<simt::VerifyResult> result;  // invalid for post()ed entries
    int64_t bytes = 0;
    Report report;
  };
  std::deque<Entry> entries_;
  int running_ = 0;
  int64_t running_bytes_ = 0;
  int max_checks_;
  int64_t host_budget_bytes_;

  void report_front();  // waits for the front entry, reports and removes it
};

// Host memory one check holds: the buffers before and after, plus the reference's double
// precision copies of them (GEMM operands and results, with temporaries).
int64_t verification_bytes(const simt::LaunchRecipe& recipe);

// A default for max_checks and the budget from this machine: all cores but two (one for
// the thread that drives the GPU), half the physical memory.
int default_max_checks();
int64_t default_host_budget_bytes();

}  // namespace loom::gpu_runner
