#include "validate/runner/progress_text.h"

#include <cstdio>

#include "arch/simt/kernels/kernel_catalog.h"

namespace loom::gpu_runner {

std::string step_text(int step, int steps) {
  char text[32];
  std::snprintf(text, sizeof text, "[%d/%d]", step, steps);
  return text;
}

std::string time_text(double us) {
  char text[32];
  if (us < 100) {
    std::snprintf(text, sizeof text, "%.2f us", us);
  } else {
    std::snprintf(text, sizeof text, "%.3f ms", us / 1000);
  }
  return text;
}

std::string byte_text(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, v < 10 && u > 0 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return text;
}

std::string launch_text(const PlannedLaunch& launch) {
  return launch.recipe.kernel + " " + simt::format_size_list(launch.recipe.kernel, launch.sizes);
}

std::string probe_launch_text(const PlannedProbe& probe, bool large) {
  return probe.def->name + (large ? ", large launch: " : ", small launch: ") + launch_text(large ? probe.large : probe.small);
}

std::string library_text(const std::string& name, int64_t n) {
  const std::string s = std::to_string(n);
  return name + " M=" + s + ",N=" + s + ",K=" + s;
}

}  // namespace loom::gpu_runner
