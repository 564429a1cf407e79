// PTX fundamental types (the `.u32`, `.f16x2`, ... suffixes) and their sizes and classes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace loom::simt {

enum class PtxType : uint8_t {
  none,
  b8, b16, b32, b64, b128,
  u8, u16, u32, u64,
  s8, s16, s32, s64,
  f16, f16x2, bf16, bf16x2, tf32, f32, f64,
  pred,
};

enum class TypeClass : uint8_t { none, bits, unsigned_int, signed_int, float_point, half, predicate };

std::optional<PtxType> parse_ptx_type(std::string_view suffix);  // "u32" -> u32
const char* ptx_type_name(PtxType type);                          // u32 -> "u32"
int type_bytes(PtxType type);  // storage size; 0 for pred/none
TypeClass type_class(PtxType type);

inline int type_bits(PtxType type) { return 8 * type_bytes(type); }
inline bool is_float_type(PtxType t) { return type_class(t) == TypeClass::float_point; }
inline bool is_signed_type(PtxType t) { return type_class(t) == TypeClass::signed_int; }
// f16, bf16 and their packed pairs: the software-rounded half formats.
inline bool is_half_type(PtxType t) { return type_class(t) == TypeClass::half; }
inline bool is_integer_type(PtxType t) {
  const TypeClass c = type_class(t);
  return c == TypeClass::bits || c == TypeClass::unsigned_int || c == TypeClass::signed_int;
}
// The all-ones mask of a type's width: registers hold values zero-extended to 64 bits.
inline uint64_t type_mask(PtxType t) {
  const int bits = type_bits(t);
  return bits >= 64 || bits == 0 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

}  // namespace loom::simt
