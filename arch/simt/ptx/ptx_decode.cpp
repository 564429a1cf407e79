#include "arch/simt/ptx/ptx_decode.h"

#include "arch/simt/ptx/decode_context.h"
#include "arch/simt/ptx/first_lane_results.h"
#include "arch/simt/ptx/issue_order.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "arch/simt/ptx/reconvergence.h"
#include "arch/simt/ptx/register_estimate.h"
#include "arch/simt/ptx/register_slots.h"

namespace loom::simt {

namespace {

OpcodeDecoder find_decoder(const std::string& base) {
  for (const auto* table : {&arithmetic_decoders(), &move_decoders(), &memory_decoders(), &control_decoders()}) {
    const auto it = table->find(base);
    if (it != table->end()) return it->second;
  }
  return nullptr;
}

// Whether execution can run past the last instruction (then an exit is appended, as the
// hardware ends a thread that runs off the end of its kernel).
bool falls_off_end(const std::vector<DecodedInstruction>& code) {
  if (code.empty()) return true;
  const DecodedInstruction& last = code.back();
  return !(last.guard == kNoOperand && (last.control == Control::exit || last.control == Control::branch));
}

}  // namespace

PtxKernel decode_kernel(const PtxModule& module, const std::string& entry_name, const DecodeOptions& options) {
  const PtxEntry& entry = module.entry(entry_name);
  PtxKernel kernel;
  DecodeContext context(module, entry, kernel);
  size_t count = 0;
  for (const PtxStatement& s : entry.body) count += s.label.empty();
  kernel.code.reserve(count + 1);
  kernel.statics.reserve(count + 1);
  for (const PtxStatement& s : entry.body) {
    if (!s.label.empty()) continue;
    kernel.code.emplace_back();
    kernel.statics.emplace_back();
    context.begin(s, kernel.code.back(), kernel.statics.back());
    const std::string& base = context.opcode().base;
    if (base == "call")
      context.unsupported("device-function calls (.func) are not modelled; inline the callee (__forceinline__)");
    const OpcodeDecoder decoder = find_decoder(base);
    if (!decoder) context.unsupported("");
    decoder(context);
    context.finish();
  }
  // Branches to a label after the last instruction land here too.
  bool branch_past_end = false;
  for (const DecodedInstruction& d : kernel.code) branch_past_end |= d.control == Control::branch && d.target >= count;
  if (falls_off_end(kernel.code) || branch_past_end) {
    DecodedInstruction exit;
    exit.control = Control::exit;
    StaticInstruction info;
    info.unit = Unit::control;
    info.energy = EnergyClass::control;
    info.is_exit = true;
    info.line = entry.body.empty() ? entry.line : entry.body.back().line;
    info.text = "exit (implicit, end of kernel)";
    kernel.code.push_back(exit);
    kernel.statics.push_back(info);
  }
  // The register estimate (occupancy) is the PTX's as written: hoisting loads lengthens live
  // ranges, which ptxas weighs against register pressure and this pass does not.
  kernel.live_register_words = max_live_register_words(kernel);
  kernel.estimated_registers = estimate_registers_per_thread(kernel);
  if (options.schedule) schedule_issue_order(kernel);
  assign_reconvergence_points(kernel.code);
  if (options.first_lane_results) mark_first_lane_results(kernel);  // on register ids, before packing
  pack_register_slots(kernel, options.narrow_registers);  // after everything that reads operands as register ids
  return kernel;
}

PtxKernel load_ptx_kernel(const std::string& path, const std::string& entry_name, const DecodeOptions& options) {
  return decode_kernel(load_ptx_file(path), entry_name, options);
}

}  // namespace loom::simt
