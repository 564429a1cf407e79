// float_to_half over an array: the same bits, eight at a time where the host has F16C.
// For the places that round many values at once (a launch's random fp16 inputs: two
// million of them for the 1024^3 GEMMs, which the scalar loop took 8 ms to round, inside
// the benchmark's timed run).
#pragma once

#include <cstddef>
#include <cstdint>

namespace loom::simt {

// out[i] = float_to_half(in[i]) for i in [0, n): round to nearest, ties to even, overflow
// to infinity, NaN quieted with its top payload bits kept, exactly as float_to_half.
void floats_to_halves(const float* in, size_t n, uint16_t* out);

// The two versions behind it, for tests; the F16C one only where loom::host_has_f16c()
// and loom::host_has_avx2().
void floats_to_halves_portable(const float* in, size_t n, uint16_t* out);
void floats_to_halves_f16c(const float* in, size_t n, uint16_t* out);

}  // namespace loom::simt
