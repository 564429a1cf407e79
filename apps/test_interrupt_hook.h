// A deterministic interruption for the end-to-end tests: with the environment variable
// (e.g. LOOM_TEST_INTERRUPT_AFTER_LAYERS=3) set, the process sends itself SIGINT (or, with
// LOOM_TEST_INTERRUPT_SIGNAL=TERM, SIGTERM) right after the k-th item of this process is
// kept, so the real handler runs at a known point instead of whenever a timer fires. With
// LOOM_TEST_INTERRUPT_GROUP=1 the signal goes to the whole process group, as a terminal's
// Ctrl-C does (the test must then start loom in a group of its own). Read once at
// construction; unset (the normal case) it does nothing.
#pragma once

#include <cstdint>

namespace loom {

class TestInterruptHook {
 public:
  explicit TestInterruptHook(const char* variable);
  void item_kept();

 private:
  int64_t after_ = -1, count_ = 0;
  int signal_ = 0;
  bool group_ = false;
};

}  // namespace loom
