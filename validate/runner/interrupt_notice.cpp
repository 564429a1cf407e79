#include "validate/runner/interrupt_notice.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace loom::gpu_runner {

namespace {

// Swapped as a whole, so a handler running on any thread reads one complete message.
std::atomic<const char*> notice{"\nloom-gpu-runner: interrupted\n"};

void on_interrupt(int) {
  const char* text = notice.load();
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
  std::_Exit(130);
}

}  // namespace

void install_interrupt_notice() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

void set_interrupt_notice(const std::string& partial_path) {
  // Never freed: the handler may read it until the process ends.
  const std::string* text =
      new std::string("\nloom-gpu-runner: interrupted; the runs finished so far are in " + partial_path + "\n");
  notice.store(text->c_str());
}

}  // namespace loom::gpu_runner
