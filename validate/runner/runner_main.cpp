// loom-gpu-runner: times loom's shipped CUDA kernels on a real GPU and writes the
// measurement file `loom validate` compares loom's model with (docs/validation.md, "The GPU
// runner"). Exit codes: 0 done, 1 CUDA or internal error, 2 bad arguments, 3 no CUDA
// device, 130 interrupted.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include "apps/report_writer.h"
#include "sim/error.h"
#include "validate/runner/cuda_check.h"
#include "validate/runner/device_info.h"
#include "validate/runner/interrupt_notice.h"
#include "validate/runner/measurement_output.h"
#include "validate/runner/plan_listing.h"
#include "validate/runner/runner_options.h"
#include "validate/runner/runner_plan.h"
#include "validate/runner/validation_run.h"

namespace {

using namespace loom::gpu_runner;

int dry_run(const RunnerOptions& options) {
  loom::validate::ProbeTarget target = nominal_probe_target();
  std::string device_text;
  try {
    const int count = visible_device_count();
    if (options.device >= count)
      throw loom::InputError("", "--device", "a device index below " + std::to_string(count));
    LOOM_CUDA(cudaSetDevice(options.device));
    const RunnerDevice device = query_device(options.device, options.sm_clock_mhz);
    target = device.target;
    device_text = device.info.name + " (" + std::to_string(target.sms) + " SMs, " +
                  std::to_string(target.l2_bytes >> 20) + " MiB L2)";
  } catch (const NoDeviceError& e) {
    device_text = "a nominal device, " + std::to_string(target.sms) + " SMs and " + std::to_string(target.l2_bytes >> 20) +
                  " MiB L2 (no CUDA device: " + e.what() + ")";
  }
  print_plan(make_runner_plan(target, options.quick, options.kernels), device_text, stdout);
  return 0;
}

int measure(const RunnerOptions& options) {
  const int count = visible_device_count();
  if (options.device >= count)
    throw loom::InputError("", "--device", "a device index below " + std::to_string(count) + " (this machine has " +
                                               std::to_string(count) + " visible)");
  LOOM_CUDA(cudaSetDevice(options.device));
  const RunnerDevice device = query_device(options.device, options.sm_clock_mhz);
  check_kernels_run_on(device);
  const RunnerPlan plan = make_runner_plan(device.target, options.quick, options.kernels);
  loom::make_output_dir(options.out_dir);
  const std::string date = utc_date_today();
  const OutputPaths paths = output_paths(options.out_dir, device.info.name, date);
  ValidationRun run(options, device, plan, paths, date);
  return run.run();
}

}  // namespace

int main(int argc, char** argv) {
  install_interrupt_notice();
  RunnerOptions options;
  if (const int code = parse_runner_options(argc, argv, options); code >= 0) return code;
  try {
    check_kernel_filter(options.kernels);  // before any CUDA call: a typo costs nothing
    return options.dry_run ? dry_run(options) : measure(options);
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "loom-gpu-runner: no CUDA device found: %s\n", e.what());
    return 3;
  } catch (const UnsupportedDeviceError& e) {
    std::fprintf(stderr, "loom-gpu-runner: the CUDA device cannot run the runner's kernels: %s\n", e.what());
    return 3;
  } catch (const loom::InputError& e) {
    std::fprintf(stderr, "loom-gpu-runner: error: %s\n", e.what());
    return 2;
  } catch (const CudaError& e) {
    std::fprintf(stderr, "loom-gpu-runner: CUDA error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "loom-gpu-runner: error: out of host memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom-gpu-runner: internal error: %s (please report this bug)\n", e.what());
    return 1;
  }
}
