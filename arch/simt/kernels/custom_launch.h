// A launch of any .ptx kernel from command-line text: --grid and --block as "x[,y[,z]]",
// --args as comma-separated items — buffers "f32[N]", "f16[N]", "u32[N]" (random contents;
// ":zeros" for zero-filled), integers ("1024", "-3", "0x400") and floats ("2.5", "1e-3";
// passed as f64 where the parameter is .f64). Count and type mismatches with the kernel's
// .param list are left to bind_kernel_arguments, which names the kernel's signature.
#pragma once

#include <string>

#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

Dim3 parse_dim3(const std::string& text, const std::string& option);

LaunchRecipe make_custom_recipe(const PtxKernel& kernel, const std::string& ptx_path, const std::string& grid,
                                const std::string& block, const std::string& args);

}  // namespace loom::simt
