// Splits PTX source into tokens. PTX names, opcodes and directives are dotted words
// ("ld.global.nc.v4.f32", "%tid.x", ".reg", "0f3F800000"), so one token kind covers them
// all and the parser interprets each word by its position; everything else is a single
// punctuation character or a quoted string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::simt {

struct PtxToken {
  enum class Kind : uint8_t { word, string, punct, end };
  Kind kind = Kind::end;
  std::string_view text;  // view into the source text
  uint32_t line = 0;      // 1-based
  uint32_t offset = 0;    // byte offset of the first character in the source

  bool is(char c) const { return kind == Kind::punct && text.size() == 1 && text[0] == c; }
  bool is_word(std::string_view w) const { return kind == Kind::word && text == w; }
  bool kind_is_end() const { return kind == Kind::end; }
};

// Throws InputError(source_name, "line N", ...) on an unterminated comment or string or a
// character PTX never uses. The last token is always Kind::end.
std::vector<PtxToken> lex_ptx(std::string_view source, const std::string& source_name);

}  // namespace loom::simt
