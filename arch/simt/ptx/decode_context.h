// The state shared by the per-opcode decoders (decode_*.cpp): the kernel under
// construction, the instruction being decoded, and helpers that turn syntactic operands into
// storage indices and constants while recording the register ids the timing model needs.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "arch/simt/ptx/exec_handlers.h"
#include "arch/simt/ptx/ptx_program.h"
#include "arch/simt/ptx/ptx_syntax.h"

namespace loom::simt {

// "ld.global.nc.v4.f32" -> base "ld", modifiers {global, nc, v4}, types {f32}.
struct Opcode {
  std::string base;
  std::vector<std::string> mods;
  std::vector<PtxType> types;
  bool has(std::string_view mod) const;
};
Opcode split_opcode(const std::string& text);

class DecodeContext {
 public:
  DecodeContext(const PtxModule& module, const PtxEntry& entry, PtxKernel& kernel);

  // ---- the instruction being decoded ---------------------------------------------------
  void begin(const PtxStatement& statement, DecodedInstruction& decoded, StaticInstruction& info);
  void finish();  // fills src/dst id lists, guard, line, text
  const PtxStatement& statement() const { return *statement_; }
  const Opcode& opcode() const { return opcode_; }
  DecodedInstruction& d() { return *decoded_; }
  StaticInstruction& info() { return *info_; }

  // ---- checks ----------------------------------------------------------------------------
  [[noreturn]] void fail(const std::string& expected) const;        // malformed instruction
  [[noreturn]] void unsupported(const std::string& why) const;      // valid PTX loom lacks
  void expect_operands(size_t count, const char* shape) const;       // shape: "d, a, b"
  // Every modifier must be one of `allowed` (cache and ordering hints are accepted anywhere
  // they are harmless via accept_memory_hints).
  void allow_mods(std::initializer_list<std::string_view> allowed) const;
  PtxType one_type() const;  // exactly one type suffix
  const PtxOperand& operand(size_t i) const { return statement_->operands[i]; }

  // ---- operands --------------------------------------------------------------------------
  // A source read as `type`: a register, a special register, an immediate or a symbol's
  // address; returns its encoding (storage index or kConstantFlag | constant index).
  uint32_t read(const PtxOperand& op, PtxType type);
  // A predicate source; `negated` receives a leading '!'.
  uint32_t read_predicate(const PtxOperand& op, bool& negated);
  // A destination register ("_" writes the scratch slot).
  uint32_t write(const PtxOperand& op);
  // The "d|p" destination of setp and shfl: d() gets one or two destinations, the second
  // flagged kFlagSecondDst.
  void write_destination_pair(const PtxOperand& op);
  // Declared type of a register operand (PtxType::none for anything else).
  PtxType register_type(const PtxOperand& op) const;
  // Sets d().address and d().offset from a [ ] operand in `space` (none = generic).
  void set_address(const PtxOperand& op, MemorySpace space);
  uint32_t constant(uint64_t bits);
  // The address of a variable or parameter in its own state space; `space` receives it.
  uint64_t symbol_address(const std::string& name, MemorySpace& space) const;

  // ---- timing classification -------------------------------------------------------------
  void classify(Unit unit, EnergyClass energy);
  // Unit and energy class for arithmetic of `type` (int_alu, fp32, fp64 or fp16).
  void classify_arithmetic(PtxType type);

  uint32_t pc_of_label(const std::string& label) const;  // fails on unknown labels

 private:
  void map_registers_and_symbols();
  void layout_params();
  void layout_variables();
  void note_src(uint32_t storage);
  void note_dst(uint32_t storage);

  const PtxModule& module_;
  const PtxEntry& entry_;
  PtxKernel& kernel_;
  std::vector<int> register_id_;  // declared index -> register id (-1: unused)
  std::unordered_map<int, uint32_t> special_slot_;
  std::unordered_map<uint64_t, uint32_t> constant_index_;
  struct Symbol {
    MemorySpace space;
    uint64_t address;
  };
  std::unordered_map<std::string, Symbol> symbols_;
  std::unordered_map<std::string, uint32_t> labels_;

  const PtxStatement* statement_ = nullptr;
  Opcode opcode_;
  DecodedInstruction* decoded_ = nullptr;
  StaticInstruction* info_ = nullptr;
  std::vector<uint16_t> srcs_, dsts_;
};

// Per-opcode decoders (decode_arith.cpp, decode_move.cpp, decode_memory.cpp, decode_control.cpp).
using OpcodeDecoder = void (*)(DecodeContext&);
const std::map<std::string, OpcodeDecoder, std::less<>>& arithmetic_decoders();
const std::map<std::string, OpcodeDecoder, std::less<>>& move_decoders();
const std::map<std::string, OpcodeDecoder, std::less<>>& memory_decoders();
const std::map<std::string, OpcodeDecoder, std::less<>>& control_decoders();

}  // namespace loom::simt
