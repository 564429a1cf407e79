#include "arch/simt/ptx/ptx_types.h"

#include <array>

namespace loom::simt {

namespace {
struct TypeRow {
  PtxType type;
  const char* name;
  int bytes;
  TypeClass cls;
};
constexpr std::array<TypeRow, 22> kTypes{{
    {PtxType::none, "none", 0, TypeClass::none},
    {PtxType::b8, "b8", 1, TypeClass::bits},
    {PtxType::b16, "b16", 2, TypeClass::bits},
    {PtxType::b32, "b32", 4, TypeClass::bits},
    {PtxType::b64, "b64", 8, TypeClass::bits},
    {PtxType::b128, "b128", 16, TypeClass::bits},
    {PtxType::u8, "u8", 1, TypeClass::unsigned_int},
    {PtxType::u16, "u16", 2, TypeClass::unsigned_int},
    {PtxType::u32, "u32", 4, TypeClass::unsigned_int},
    {PtxType::u64, "u64", 8, TypeClass::unsigned_int},
    {PtxType::s8, "s8", 1, TypeClass::signed_int},
    {PtxType::s16, "s16", 2, TypeClass::signed_int},
    {PtxType::s32, "s32", 4, TypeClass::signed_int},
    {PtxType::s64, "s64", 8, TypeClass::signed_int},
    {PtxType::f16, "f16", 2, TypeClass::half},
    {PtxType::f16x2, "f16x2", 4, TypeClass::half},
    {PtxType::bf16, "bf16", 2, TypeClass::half},
    {PtxType::bf16x2, "bf16x2", 4, TypeClass::half},
    {PtxType::tf32, "tf32", 4, TypeClass::float_point},
    {PtxType::f32, "f32", 4, TypeClass::float_point},
    {PtxType::f64, "f64", 8, TypeClass::float_point},
    {PtxType::pred, "pred", 0, TypeClass::predicate},
}};
const TypeRow& row(PtxType t) { return kTypes[static_cast<size_t>(t)]; }
}  // namespace

std::optional<PtxType> parse_ptx_type(std::string_view suffix) {
  for (const TypeRow& r : kTypes)
    if (r.type != PtxType::none && suffix == r.name) return r.type;
  return std::nullopt;
}

const char* ptx_type_name(PtxType type) { return row(type).name; }
int type_bytes(PtxType type) { return row(type).bytes; }
TypeClass type_class(PtxType type) { return row(type).cls; }

}  // namespace loom::simt
