// Host-side inputs and CPU reference results (Eigen) for the shipped kernels, so every
// simulated launch can be checked: integer outputs, and floating-point ones whose every
// rounding the reference reproduces (relu_add, fma_chain, mma_chain, stream_read), must
// match exactly; other floating-point ones must lie within the worst-case bound of
// recursive summation in FP32,
//   |got - exact| <= (terms + 2) * 2^-24 * sum(|term_i|),
// with `exact` computed in double. The bound holds for any summation order and with or
// without fused multiply-add, so it is tight enough to catch a wrong element yet never
// flags a correct kernel (docs/simt-model.md, "Functional checks").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/simt/kernels/kernel_catalog.h"

namespace loom::simt {

using HostBuffer = std::vector<uint8_t>;

// The initial contents of every buffer of the recipe (BufferSpec::init), reproducible from
// `seed` on any platform (no std:: distributions).
std::vector<HostBuffer> initial_buffers(const LaunchRecipe& recipe, uint64_t seed);
// Writes one buffer's initial contents into `out` (zero-filled, spec.count elements of
// spec.type), advancing `state`: initial_buffers(recipe, seed) is this for every buffer in
// recipe order from state = seed. Lets a caller fill device memory in place.
void write_initial_buffer(const BufferSpec& spec, uint64_t& state, uint8_t* out);

struct VerifyResult {
  bool ok = true;
  int64_t checked = 0;      // output elements compared
  int64_t mismatches = 0;
  double worst_ratio = 0;   // largest |got - exact| / bound (<= 1 passes)
  std::string first_mismatch;  // "C[17] = 3.5, expected 3.25 (bound 1e-6)"
};

// Compares the output buffers in `after` (the buffers read back after the run) with the
// CPU reference computed from `before` (the initial buffers).
VerifyResult verify_outputs(const LaunchRecipe& recipe, const std::vector<HostBuffer>& before,
                            const std::vector<HostBuffer>& after);

}  // namespace loom::simt
