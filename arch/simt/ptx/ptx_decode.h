// Parsed PTX -> executable kernel (ptx_program.h). Decoding checks every instruction once:
// malformed operands and instructions or modifiers loom does not model are InputErrors
// naming the line, so a kernel that decodes runs without surprises.
#pragma once

#include <string>

#include "arch/simt/ptx/ptx_program.h"
#include "arch/simt/ptx/ptx_syntax.h"

namespace loom::simt {

struct DecodeOptions {
  // Issue each block in the order ptxas's scheduler would roughly give it (issue_order.h);
  // false: exactly as the PTX is written.
  bool schedule = true;
  // Keep registers of at most 32 bits in 32-bit lanes where every instruction naming them
  // has a narrow handler (register_slots.h); false: every register in 64-bit lanes (the
  // reference the tests compare with).
  bool narrow_registers = true;
  // Run instructions whose results are only read at the first active lane for that lane
  // alone (first_lane_results.h); false: for every active lane (the reference the tests
  // compare with).
  bool first_lane_results = true;
};

// The kernel `entry_name` of the module ("" when the module has exactly one).
PtxKernel decode_kernel(const PtxModule& module, const std::string& entry_name, const DecodeOptions& options = {});

// load_ptx_file + decode_kernel.
PtxKernel load_ptx_kernel(const std::string& path, const std::string& entry_name, const DecodeOptions& options = {});

}  // namespace loom::simt
