#include "apps/interrupt_notice.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

namespace loom::interrupt_notice {

namespace {

struct Message {
  std::string before, after, none;
};

// Set once before the handler is installed, never freed: the handler may read it until the
// process ends.
std::atomic<const Message*> g_message{nullptr};
std::atomic<int64_t> g_kept{0};
// A handler may only touch lock-free atomics.
static_assert(std::atomic<const Message*>::is_always_lock_free && std::atomic<int64_t>::is_always_lock_free);

void say(const std::string& text) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) return;  // stderr is gone: nothing more a handler can do
    p += n;
    left -= static_cast<size_t>(n);
  }
}

extern "C" void on_interrupt(int) {
  const Message* m = g_message.load();
  const int64_t kept = g_kept.load();
  if (m != nullptr && kept == 0) say(m->none);
  if (m != nullptr && kept > 0) {
    char digits[24];
    size_t at = sizeof digits;
    for (int64_t k = kept; k > 0; k /= 10) digits[--at] = static_cast<char>('0' + k % 10);
    say(m->before);
    const ssize_t ignored = ::write(STDERR_FILENO, digits + at, sizeof digits - at);
    (void)ignored;
    say(m->after);
  }
  ::_exit(130);
}

}  // namespace

void install(const std::string& before_count, const std::string& after_count, const std::string& none_kept,
             int64_t kept) {
  g_message.store(new Message{before_count, after_count, none_kept});
  g_kept.store(kept);
  // Each signal blocks the other while the handler runs: one message, however many arrive.
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void count_kept() { g_kept.fetch_add(1); }

void finish() {
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
}

}  // namespace loom::interrupt_notice
