// What the host CPU offers beyond the baseline x86-64 that loom is built for, asked once at
// run time, so a hot path can take a vector version (compiled with a target attribute) where
// the host has one and the portable version elsewhere, with the same results.
#pragma once

namespace loom {

bool host_has_avx2();
bool host_has_fma();
// F16C (vcvtph2ps: eight fp16 values to fp32 in one instruction); every AVX2 host has it.
bool host_has_f16c();
// AVX-512 Foundation, with the OS saving its registers (zmm state enabled in XCR0).
bool host_has_avx512f();
// AVX-512 Byte and Word (16-bit compares into a 32-bit mask), with AVX-512F.
bool host_has_avx512bw();

}  // namespace loom
