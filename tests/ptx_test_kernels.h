// Decoding and running PTX in the tests of the decode passes (issue order, narrow registers,
// first-lane results): each compares a kernel decoded with a pass and without it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/ptx_decode.h"

namespace loom_test {

// A shipped kernel (validate/kernels/NAME.ptx, as embedded), decoded with `options`.
loom::simt::PtxKernel decode_shipped(const std::string& name, const loom::simt::DecodeOptions& options);
// The kernel `k(.param .u64 out) { body }`, decoded with `options`.
loom::simt::PtxKernel decode_text(const std::string& body, const loom::simt::DecodeOptions& options);
// The pc of the first instruction whose text holds `part` (a test failure where none does).
size_t pc_of(const loom::simt::PtxKernel& k, const std::string& part);
// Small launches of the shipped kernels: the defaults, except the GEMMs and the convolution.
std::map<std::string, int64_t> small_sizes(const std::string& name);
// Runs `kernel` functionally on the recipe's buffers (seed 7): every buffer afterwards.
std::vector<loom::simt::HostBuffer> run_recipe_functionally(const loom::simt::LaunchRecipe& recipe,
                                                            const loom::simt::PtxKernel& kernel);
// A timed launch of `kernel` on the recipe's buffers (seed 7): the statistics as the reports
// print them (JSON) and every buffer afterwards. `run_ahead`: through CtaRunAheadSource
// (the kernel must allow it), else executed at issue.
struct TimedRun {
  std::string stats;
  std::vector<loom::simt::HostBuffer> memory;
};
TimedRun run_recipe_timed(const loom::simt::GpuConfig& config, const loom::simt::LaunchRecipe& recipe,
                          const loom::simt::PtxKernel& kernel, bool run_ahead = false);
// Runs decode_text's kernel on one warp with `out` of `words` 32-bit words (zeroed): `out` after.
std::vector<uint32_t> run_one_warp(const loom::simt::PtxKernel& kernel, size_t words);

}  // namespace loom_test
