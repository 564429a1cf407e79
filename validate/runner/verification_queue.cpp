#include "validate/runner/verification_queue.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <thread>
#include <utility>

namespace loom::gpu_runner {

int64_t verification_bytes(const simt::LaunchRecipe& recipe) {
  int64_t bytes = 0, elements = 0;
  for (const simt::BufferSpec& b : recipe.buffers) {
    bytes += b.count * simt::element_bytes(b.type);
    elements += b.count;
  }
  // before + after; the GEMM-like references also hold A, B, A*B and |A|*|B| as double
  // matrices, plus a temporary: about four doubles per element.
  const bool matrices = recipe.kernel.find("gemm") != std::string::npos;
  return 2 * bytes + (matrices ? 4 * 8 * elements : 0);
}

int default_max_checks() {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, cores - 2);
}

int64_t default_host_budget_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return int64_t{8} << 30;  // unknown: assume a modest machine
  return static_cast<int64_t>(pages) * page / 2;
}

VerificationQueue::VerificationQueue(int max_checks, int64_t host_budget_bytes)
    : max_checks_(std::max(1, max_checks)), host_budget_bytes_(host_budget_bytes) {}

VerificationQueue::~VerificationQueue() {
  // std::future from std::async waits in its destructor; make that explicit and quiet.
  for (Entry& e : entries_)
    if (e.result.valid()) e.result.wait();
}

void VerificationQueue::submit(simt::LaunchRecipe recipe, std::vector<simt::HostBuffer> before,
                               std::vector<simt::HostBuffer> after, Report report) {
  const int64_t bytes = verification_bytes(recipe);
  report_finished();
  while (running_ > 0 && (running_ >= max_checks_ || running_bytes_ + bytes > host_budget_bytes_)) report_front();
  Entry e;
  e.bytes = bytes;
  e.report = std::move(report);
  e.result = std::async(std::launch::async,
                        [recipe = std::move(recipe), before = std::move(before), after = std::move(after)] {
                          try {
                            return simt::verify_outputs(recipe, before, after);
                          } catch (const std::exception& ex) {
                            // Out of host memory, say: the run is then not verified, and says why.
                            simt::VerifyResult failed;
                            failed.ok = false;
                            failed.first_mismatch = std::string("the check could not run: ") + ex.what();
                            return failed;
                          }
                        });
  ++running_;
  running_bytes_ += bytes;
  entries_.push_back(std::move(e));
}

void VerificationQueue::post(Report report) {
  Entry e;
  e.report = std::move(report);
  entries_.push_back(std::move(e));
  report_finished();
}

void VerificationQueue::report_finished() {
  while (!entries_.empty()) {
    Entry& front = entries_.front();
    if (front.result.valid() && front.result.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    report_front();
  }
}

void VerificationQueue::drain() {
  while (!entries_.empty()) report_front();
}

void VerificationQueue::report_front() {
  Entry e = std::move(entries_.front());
  entries_.pop_front();
  if (e.result.valid()) {
    const simt::VerifyResult result = e.result.get();
    --running_;
    running_bytes_ -= e.bytes;
    e.report(&result);
  } else {
    e.report(nullptr);
  }
}

}  // namespace loom::gpu_runner
