// `loom gpu`: one kernel launch on a SIMT GPU config. A shipped kernel by name with its
// problem sizes (grid, buffers and arguments follow the kernel's launch rule, outputs are
// checked against the CPU reference), or any .ptx file with an explicit grid, block and
// argument list, or a JSON launch file holding either. Prints the launch summary and writes
// report.json and resolved_config.json.
#pragma once

#include <cstdint>
#include <string>

#include "apps/gpu_report.h"
#include "arch/architecture.h"

namespace CLI { class App; }

namespace loom {

struct GpuArgs {
  std::string arch;
  std::string kernel;   // shipped kernel name or .ptx path
  std::string entry;    // .ptx with several entries
  std::string sizes;    // "M=1024,N=1024,K=1024"
  std::string grid, block, args;  // custom .ptx launches
  std::string launch;   // JSON launch file
  std::string out = "loom-out";
  uint64_t seed = 1;
  int registers = 0;
  std::string issue_order = "scheduled";  // or "written": the PTX's own order (issue_order.h)
  bool no_check = false;
  bool execute_at_issue = false;  // never run CTAs ahead of their issues (cta_run_ahead.h)
  bool list = false;
  bool quiet = false;
};

void add_gpu_command(CLI::App& app, GpuArgs& args);

// One launch (args.kernel with args.sizes, or a custom .ptx) on `arch`, simulated and
// priced, its outputs checked against the CPU reference; nothing printed or written.
// InputError unless `arch` is a GPU. The Python bindings call it too.
GpuLaunchOutcome run_gpu_launch(const GpuArgs& args, const Architecture& arch);
int gpu_command(GpuArgs args);  // returns the exit code

}  // namespace loom
