// PTX numeric literals: decimal, 0x hex, 0b binary, leading-0 octal (optional U suffix),
// 0fXXXXXXXX (f32 bit pattern), 0dXXXXXXXXXXXXXXXX (f64 bit pattern), decimal floats (f64).
#pragma once

#include <optional>
#include <string_view>

#include "arch/simt/ptx/ptx_syntax.h"

namespace loom::simt {

// The literal as an operand of kind integer, f32 or f64, negated when `negative` (a preceding
// '-'); nullopt when `word` is not a well-formed literal.
std::optional<PtxOperand> parse_ptx_literal(std::string_view word, bool negative);

}  // namespace loom::simt

namespace loom::simt {

// A literal operand (integer, f32 or f64) as the register bits an instruction of `type`
// would see: integers converted to float for float types, float patterns kept for bit types,
// rounded to nearest-even for half types; masked to the type's width.
uint64_t literal_as(const PtxOperand& literal, PtxType type);

}  // namespace loom::simt
