// The `loom` command line: parses arguments, dispatches to a subcommand, and maps errors
// to exit codes (0 ok, 2 bad input, 1 internal error, 130 interrupted).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <new>

#include <CLI/CLI.hpp>

#include "apps/gpu_command.h"
#include "apps/map_command.h"
#include "apps/report_command.h"
#include "apps/roofline_command.h"
#include "apps/run_command.h"
#include "apps/sweep_command.h"
#include "apps/train_command.h"
#include "apps/validate_command.h"
#include "sim/error.h"

namespace {
// Until a command installs its own (`run` and `sweep` say what they kept and how to
// resume). Each output file is written atomically with these signals held off
// (sim/text_file.h), so stopping now leaves no partial file.
void on_interrupt(int) {
  static const char kText[] = "\nloom: interrupted\n";
  const ssize_t ignored = ::write(STDERR_FILENO, kText, sizeof kText - 1);
  (void)ignored;
  std::_Exit(130);
}
}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  CLI::App app{"loom: cycle-level accelerator simulator and design-space explorer"};
  app.set_version_flag("--version", std::string("loom ") + LOOM_VERSION);
  app.require_subcommand(1);
  loom::RunArgs run_args;
  loom::add_run_command(app, run_args);
  loom::MapArgs map_args;
  loom::add_map_command(app, map_args);
  loom::GpuArgs gpu_args;
  loom::add_gpu_command(app, gpu_args);
  loom::ValidateArgs validate_args;
  loom::add_validate_command(app, validate_args);
  loom::SweepArgs sweep_args;
  loom::add_sweep_command(app, sweep_args);
  loom::MergeArgs merge_args;
  loom::add_merge_command(app, merge_args);
  loom::ReportArgs report_args;
  loom::add_report_command(app, report_args);
  loom::RooflineArgs roofline_args;
  loom::add_roofline_command(app, roofline_args);
  loom::TrainArgs train_args;
  loom::add_train_command(app, train_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "loom: error: %s (see loom --help)\n", e.what());
    return 2;
  }
  try {
    if (app.got_subcommand("run")) return loom::run_command(run_args);
    if (app.got_subcommand("map")) return loom::map_command(map_args);
    if (app.got_subcommand("gpu")) return loom::gpu_command(gpu_args);
    if (app.got_subcommand("validate")) return loom::validate_command(validate_args);
    if (app.got_subcommand("sweep")) return loom::sweep_command(sweep_args);
    if (app.got_subcommand("merge")) return loom::merge_command(merge_args);
    if (app.got_subcommand("report")) return loom::report_command(report_args);
    if (app.got_subcommand("roofline")) return loom::roofline_command(roofline_args);
    if (app.got_subcommand("train")) return loom::train_command(train_args);
  } catch (const loom::InputError& e) {
    std::fprintf(stderr, "loom: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "loom: error: out of memory (the inputs ask for more than this machine has)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom: internal error: %s (please report this bug)\n", e.what());
    return 1;
  }
  return 0;
}
