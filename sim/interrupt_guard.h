// Holds off SIGINT and SIGTERM in the calling thread while a short step that must not be
// cut in half runs: renaming a finished file into place, writing a run's set of report
// files, appending a checkpoint line and counting it. A signal that arrives meanwhile stays
// pending and is delivered when the guard ends, so Ctrl-C lands before or after the step.
// Guards nest (each restores the mask it found). Never hold one around a long computation:
// Ctrl-C would wait for it.
#pragma once

#include <signal.h>

namespace loom {

class DeferInterrupts {
 public:
  DeferInterrupts();
  ~DeferInterrupts();
  DeferInterrupts(const DeferInterrupts&) = delete;
  DeferInterrupts& operator=(const DeferInterrupts&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace loom
