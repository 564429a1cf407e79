// What Ctrl-C (SIGINT) or SIGTERM says during a command that keeps its finished work as it
// goes (`loom run`'s checkpoint): how much was kept, and the command that resumes. The
// process stops at once with exit code 130: a GPU layer can take minutes, and waiting for
// it would lose nothing but the user's patience, since finished layers are already kept.
//
// The handler is async-signal-safe: both messages are composed before it is installed, the
// kept count is an atomic formatted by hand, and write(2) and _exit are its only calls.
// Handlers are process-wide, so this is the one piece of global state of the command line.
#pragma once

#include <cstdint>
#include <string>

namespace loom::interrupt_notice {

// From now on SIGINT and SIGTERM print `before_count` + the kept count + `after_count`, or
// `none_kept` while the count is 0, to stderr and exit 130. `kept` is the count to start at.
void install(const std::string& before_count, const std::string& after_count, const std::string& none_kept,
             int64_t kept);
// One more item is kept (call after it is durably written).
void count_kept();
// The work is complete and written: from now on SIGINT and SIGTERM are ignored (a signal
// held off while the results were written is dropped instead of reporting an interruption).
void finish();

}  // namespace loom::interrupt_notice
