#include "apps/test_interrupt_hook.h"

#include <signal.h>

#include <csignal>
#include <cstdlib>
#include <string>

namespace loom {

TestInterruptHook::TestInterruptHook(const char* variable) {
  const char* after = std::getenv(variable);
  if (after == nullptr || *after == '\0') return;
  char* end = nullptr;
  const long long k = std::strtoll(after, &end, 10);
  if (*end != '\0' || k < 1) return;  // a test hook: a bad value means off, not an error
  after_ = k;
  const char* which = std::getenv("LOOM_TEST_INTERRUPT_SIGNAL");
  signal_ = which != nullptr && std::string(which) == "TERM" ? SIGTERM : SIGINT;
  const char* group = std::getenv("LOOM_TEST_INTERRUPT_GROUP");
  group_ = group != nullptr && std::string(group) == "1";
}

void TestInterruptHook::item_kept() {
  if (after_ < 1 || ++count_ != after_) return;
  if (group_) {
    ::kill(0, signal_);
  } else {
    std::raise(signal_);
  }
}

}  // namespace loom
