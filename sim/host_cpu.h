// What the host CPU offers beyond the baseline x86-64 that loom is built for, asked once at
// run time, so a hot path can take a vector version (compiled with a target attribute) where
// the host has one and the portable version elsewhere, with the same results.
#pragma once

namespace loom {

bool host_has_avx2();
bool host_has_fma();

}  // namespace loom
