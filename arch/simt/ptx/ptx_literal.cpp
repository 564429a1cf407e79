#include "arch/simt/ptx/ptx_literal.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <string>

namespace loom::simt {

namespace {
std::optional<uint64_t> parse_digits(std::string_view digits, int base) {
  if (digits.empty()) return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

PtxOperand make(PtxOperand::Kind kind, uint64_t bits) {
  PtxOperand op;
  op.kind = kind;
  op.bits = bits;
  return op;
}
}  // namespace

std::optional<PtxOperand> parse_ptx_literal(std::string_view word, bool negative) {
  if (word.empty() || !std::isdigit(static_cast<unsigned char>(word[0]))) return std::nullopt;
  if (word.size() >= 2 && word[0] == '0' && (word[1] == 'f' || word[1] == 'F')) {
    if (word.size() != 10) return std::nullopt;
    const auto bits = parse_digits(word.substr(2), 16);
    if (!bits) return std::nullopt;
    return make(PtxOperand::Kind::f32, negative ? (*bits ^ 0x80000000u) : *bits);
  }
  if (word.size() >= 2 && word[0] == '0' && (word[1] == 'd' || word[1] == 'D')) {
    if (word.size() != 18) return std::nullopt;
    const auto bits = parse_digits(word.substr(2), 16);
    if (!bits) return std::nullopt;
    return make(PtxOperand::Kind::f64, negative ? (*bits ^ (uint64_t{1} << 63)) : *bits);
  }
  const bool hex = word.size() >= 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
  if (!hex && word.find_first_of(".eE") != std::string_view::npos) {
    // A decimal float literal; PTX gives it type f64.
    const std::string text(word);
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text, &used);
    } catch (...) {
      return std::nullopt;
    }
    if (used != text.size()) return std::nullopt;
    return make(PtxOperand::Kind::f64, std::bit_cast<uint64_t>(negative ? -value : value));
  }
  std::string_view digits = word;
  if (digits.back() == 'U' || digits.back() == 'u') digits.remove_suffix(1);
  std::optional<uint64_t> value;
  if (hex) {
    value = parse_digits(digits.substr(2), 16);
  } else if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
    value = parse_digits(digits.substr(2), 2);
  } else if (digits.size() >= 2 && digits[0] == '0') {
    value = parse_digits(digits.substr(1), 8);
  } else {
    value = parse_digits(digits, 10);
  }
  if (!value) return std::nullopt;
  return make(PtxOperand::Kind::integer, negative ? ~*value + 1 : *value);
}

}  // namespace loom::simt

#include "arch/simt/ptx/half_float.h"

namespace loom::simt {

uint64_t literal_as(const PtxOperand& literal, PtxType type) {
  const bool is_f32 = literal.kind == PtxOperand::Kind::f32, is_f64 = literal.kind == PtxOperand::Kind::f64;
  const double value = is_f32   ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(literal.bits)))
                       : is_f64 ? std::bit_cast<double>(literal.bits)
                                : static_cast<double>(static_cast<int64_t>(literal.bits));
  switch (type) {
    case PtxType::f32:
    case PtxType::tf32:
      if (is_f32) return literal.bits & 0xffffffffu;
      return std::bit_cast<uint32_t>(static_cast<float>(value));
    case PtxType::f64:
      if (is_f64) return literal.bits;
      return std::bit_cast<uint64_t>(value);
    case PtxType::f16:
      return is_f32 || is_f64 ? to_half(value, RoundingMode::nearest_even) : literal.bits & 0xffffu;
    case PtxType::bf16:
      return is_f32 || is_f64 ? to_bfloat(value, RoundingMode::nearest_even) : literal.bits & 0xffffu;
    case PtxType::f16x2:
    case PtxType::bf16x2:
      return literal.bits & 0xffffffffu;
    case PtxType::pred:
      return literal.bits != 0 ? 1 : 0;
    default:
      return literal.bits & type_mask(type);
  }
}

}  // namespace loom::simt
