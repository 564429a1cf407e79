#include "sim/interrupt_guard.h"

#include <pthread.h>

namespace loom {

DeferInterrupts::DeferInterrupts() {
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &previous_);
}

DeferInterrupts::~DeferInterrupts() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

}  // namespace loom
