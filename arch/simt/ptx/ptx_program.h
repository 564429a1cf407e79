// A kernel decoded for execution: one DecodedInstruction (what to run, on which register
// storage slots) and one StaticInstruction (what the timing model charges) per PTX
// instruction, indexed by pc. Decoding resolves every opcode/type/modifier combination to a
// handler function once, so the executor's hot loop is a single indirect call per warp
// instruction, and resolves every operand to a flat storage index, so the handlers' lane
// loops touch nothing but contiguous arrays.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "arch/simt/ptx/ptx_syntax.h"
#include "arch/simt/ptx/special_register.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

struct WarpContext;
struct DecodedInstruction;
using ExecFn = void (*)(WarpContext&, const DecodedInstruction&, uint32_t mask);

// Instructions the executor handles itself because they change the warp's control state.
enum class Control : uint8_t { none, branch, exit, barrier };

// Source operand encoding: a storage index (per-warp registers: the kernel's registers, then
// its special registers, then one scratch slot for "_" results) or, with kConstantFlag set,
// an index into the kernel's constant table (immediates and symbol addresses, 32 copies each
// so a lane loop reads them exactly like a register).
inline constexpr uint32_t kConstantFlag = 0x80000000u;
inline constexpr uint32_t kNoOperand = 0xffffffffu;
inline constexpr uint32_t kNoReconvergence = 0xffffffffu;  // reconverge only as lanes exit

template <size_t N>
constexpr std::array<uint32_t, N> no_operands() {
  std::array<uint32_t, N> a{};
  a.fill(kNoOperand);
  return a;
}

struct DecodedInstruction {
  ExecFn exec = nullptr;
  Control control = Control::none;
  PtxType type = PtxType::none;   // the instruction's (first) type
  PtxType type2 = PtxType::none;  // a second type: cvt source, wmma/mma accumulator input
  uint8_t n_dst = 0, n_src = 0;
  uint8_t op = 0;     // a sub-operation: comparison, atomic op, shuffle mode, boolean op ...
  uint8_t mode = 0;   // rounding mode, layout, ...
  uint8_t flags = 0;  // kFlag* below
  uint8_t vec = 1;    // elements per lane of a vector ld/st
  bool guard_negated = false;
  bool guard_narrow = false;      // the guard predicate is in a narrow slot (register_slots.h)
  uint32_t guard = kNoOperand;    // predicate storage index
  uint32_t target = 0;            // branch target pc
  uint32_t reconverge = kNoReconvergence;
  uint32_t address = kNoOperand;  // base register of a memory operand (kNoOperand: absolute)
  int64_t offset = 0;             // address displacement, or a small immediate parameter
  uint64_t aux = 0;               // result width mask, LUT, ...
  // The same operation on 32-bit register lanes (register_slots.h), for the decoder to
  // offer where the instruction's values fit in 32 bits; nullptr where there is none.
  // The packing pass makes it `exec` when every register among src and dst is narrow.
  ExecFn narrow = nullptr;
  // ld/st: the same with a narrow address register, values wide or narrow.
  ExecFn narrow_address = nullptr, narrow_both = nullptr;
  bool narrow_sources_only = false;  // the twin narrows src only (mul.wide: its result is wide)
  // Leading sources of which the handler reads lanes 0-15 only (wmma.mma's a and b
  // fragments), so that a hint for the instruction asks for no more of them.
  uint8_t half_warp_sources = 0;
  // The handler computes each active lane's results from that lane's operands alone, with
  // no memory and no other lane (integer arithmetic, conversions, moves): set at decode,
  // for first_lane_results.h.
  bool lane_local = false;
  // The handler reads its address and aux operands at the first active lane only (wmma
  // load and store): set at decode, for first_lane_results.h.
  bool first_lane_address = false;
  // Entries past n_dst / n_src are kNoOperand: no pass mistakes them for register 0.
  std::array<uint32_t, StaticInstruction::kMaxDst> dst = no_operands<StaticInstruction::kMaxDst>();
  std::array<uint32_t, StaticInstruction::kMaxSrc> src = no_operands<StaticInstruction::kMaxSrc>();

  static constexpr uint8_t kFlagSaturate = 1, kFlagNegateC = 2, kFlagSecondDst = 4, kFlagSigned = 8;
  // aux holds an operand encoding (wmma's stride), renamed with the others (register_slots.h).
  static constexpr uint8_t kFlagAuxOperand = 16;
  static constexpr uint8_t kFlagAuxNarrow = 32;  // that operand is in a narrow slot (register_slots.h)
  // The handler reads every operand in full before it writes any destination (wmma.mma), so
  // its results may share slots with operands that die there (register_slots.h).
  static constexpr uint8_t kFlagSourcesReadFirst = 64;
  // Only the first active lane of the result is ever read (first_lane_results.h): the
  // executor runs the handler for that lane alone.
  static constexpr uint8_t kFlagFirstLaneOnly = 128;
};

struct KernelParam {
  std::string name;
  PtxType type = PtxType::u64;
  uint32_t offset = 0, bytes = 0, align = 0;
  bool is_array = false;
};

struct SharedSymbol {
  std::string name;
  uint32_t offset = 0;  // within the CTA's shared memory (static symbols first)
  uint32_t bytes = 0;
  bool dynamic = false;  // extern .shared name[]: starts the launch's dynamic region
};

struct PtxKernel {
  std::string name;
  std::string source_name;  // the .ptx path (errors)
  std::vector<DecodedInstruction> code;
  std::vector<StaticInstruction> statics;  // parallel to code
  std::vector<PtxRegister> registers;      // register id -> declaration (only those used)
  std::vector<SpecialRegister> specials;   // storage index special_slot + 3 i (wide), + 3 i + 2 (narrow)
  // After decoding, a storage index counts 128-byte units of a warp's register storage
  // (register_slots.h): a wide slot is 32 lanes of 64 bits (two units), a narrow one 32
  // lanes of 32 bits (one unit, narrow_begin .. narrow_end). Registers are packed by
  // liveness; decoded operands name units, StaticInstruction keeps the register ids.
  uint32_t special_slot = 0;
  uint32_t scratch_slot = 0;               // storage index for "_" results (wide)
  uint32_t narrow_begin = 0, narrow_end = 0;
  std::vector<uint64_t> constants;         // constant table: 32 copies of each value
  std::vector<uint32_t> constants32;       // the same, 32-bit lanes (narrow handlers)
  std::vector<KernelParam> params;
  uint32_t param_bytes = 0;
  std::vector<SharedSymbol> shared;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_align = 16;  // the dynamic region starts at static bytes rounded up to this
  uint32_t local_bytes = 0;            // per-thread .local memory
  std::vector<uint8_t> constant_bank;  // module .const variables
  int live_register_words = 0;         // liveness maximum (register_estimate.h)
  int estimated_registers = 0;         // what a CTA is charged per thread

  uint32_t register_count() const { return static_cast<uint32_t>(registers.size()); }
  // 128-byte units of register storage per warp (the scratch slot, wide, comes last).
  uint32_t storage_units() const { return scratch_slot + 2; }
  bool is_narrow(uint32_t operand) const { return operand >= narrow_begin && operand < narrow_end; }
  uint32_t dynamic_shared_offset() const {
    return (static_shared_bytes + dynamic_shared_align - 1) / dynamic_shared_align * dynamic_shared_align;
  }
};

}  // namespace loom::simt
