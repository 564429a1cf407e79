// Whether a GPU config models the device a measurement file was recorded on. Names differ in
// decoration ("V100-SXM2-16GB" in configs/v100.json, "Tesla V100-SXM2-16GB" from the CUDA
// runtime, "NVIDIA H200" vs "H200-SXM-141GB"), so the model is compared: the first word of
// the name once vendor words ("NVIDIA", "Tesla", "GeForce", ...) are dropped.
#pragma once

#include <string>

namespace loom::validate {

// "v100", "h200", "t4", "a100" ...; "" when the name has no word at all.
std::string gpu_model(const std::string& name);
bool same_gpu_model(const std::string& a, const std::string& b);

}  // namespace loom::validate
