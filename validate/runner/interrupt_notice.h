// Ctrl-C (SIGINT) or SIGTERM during a run: the runner stops at once (exit 130) and says
// where the runs finished so far were saved. Only async-signal-safe calls in the handler.
#pragma once

#include <string>

namespace loom::gpu_runner {

void install_interrupt_notice();
// The partial file the notice names (kept in a fixed buffer the handler can read).
void set_interrupt_notice(const std::string& partial_path);

}  // namespace loom::gpu_runner
