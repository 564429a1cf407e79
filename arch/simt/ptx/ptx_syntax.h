// PTX as parsed, before decoding: entries, declarations and statements with their operands
// in syntactic form. Register names are already resolved to indices into the entry's
// declaration list (scoping of nested { } blocks is lexical, so the parser owns it);
// opcodes are still text, which the decoder (ptx_decode.h) turns into executable form.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/simt/ptx/ptx_types.h"
#include "arch/simt/ptx/special_register.h"

namespace loom::simt {

struct PtxOperand {
  enum class Kind : uint8_t {
    reg,      // %r1 (negated: !%p1; reg2 >= 0: the "%p|%q" pair)
    special,  // %tid.x
    integer,  // 42, -1, 0xff (bits: two's complement)
    f32,      // 0f3F800000 (bits: the pattern)
    f64,      // 0d3FF0000000000000 or a decimal literal such as 1.5 (bits: the pattern)
    symbol,   // a label, a variable or a parameter name
    address,  // [base+offset]: base is reg (>= 0), symbol (non-empty) or neither (absolute)
    vector,   // {a, b, ...}
    sink,     // _ (a discarded result)
  };
  Kind kind = Kind::integer;
  bool negated = false;
  int reg = -1;
  int reg2 = -1;
  SpecialRegister special = SpecialRegister::tid_x;
  uint64_t bits = 0;
  int64_t offset = 0;
  std::string symbol;
  std::vector<PtxOperand> elements;
};

struct PtxRegister {
  std::string name;
  PtxType type = PtxType::b32;
};

enum class PtxSpace : uint8_t { global, shared, local, constant, param };

// A .shared/.local/.const/.global variable (module or entry scope).
struct PtxVariable {
  std::string name;
  PtxSpace space = PtxSpace::shared;
  PtxType type = PtxType::b8;
  uint32_t align = 1;
  uint64_t count = 1;      // array elements (1 for a scalar)
  bool unsized = false;    // "name[]": extern dynamic shared memory
  std::vector<uint8_t> initializer;  // little-endian bytes; empty = zero
  uint32_t line = 0;
  uint64_t bytes() const { return count * static_cast<uint64_t>(type_bytes(type)); }
};

struct PtxParam {
  std::string name;
  PtxType type = PtxType::u64;
  uint32_t align = 0;   // 0 = the type's size
  uint32_t count = 1;   // > 1 or array syntax: a by-value byte array (struct)
  bool is_array = false;
  uint32_t line = 0;
};

struct PtxStatement {
  uint32_t line = 0;
  std::string label;  // non-empty: a label definition, nothing else is set
  int guard = -1;     // predicate register index of "@%p" / "@!%p"
  bool guard_negated = false;
  std::string opcode;  // "ld.global.nc.f32"
  std::vector<PtxOperand> operands;
  std::string text;  // the instruction as written, whitespace collapsed, without ';'
};

struct PtxEntry {
  std::string name;
  uint32_t line = 0;
  std::vector<PtxParam> params;
  std::vector<PtxRegister> registers;  // indexed by PtxOperand::reg
  std::vector<PtxVariable> variables;  // .shared/.local declared inside the body
  std::vector<PtxStatement> body;
};

struct PtxModule {
  std::string source_name;
  std::string version, target;
  std::vector<PtxEntry> entries;
  std::vector<std::string> functions;  // .func names (not executable by loom)
  std::vector<PtxVariable> variables;  // module-scope .const/.global/.shared

  // The entry called `name`; "" picks the only one. InputError listing the entries otherwise.
  const PtxEntry& entry(const std::string& name) const;
};

}  // namespace loom::simt
