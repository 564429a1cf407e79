#include "arch/simt/ptx/ptx_lexer.h"

#include <cctype>

#include "sim/error.h"

namespace loom::simt {

namespace {
bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.';
}
std::string line_field(uint32_t line) { return "line " + std::to_string(line); }
}  // namespace

std::vector<PtxToken> lex_ptx(std::string_view src, const std::string& source_name) {
  std::vector<PtxToken> tokens;
  tokens.reserve(src.size() / 4);
  uint32_t line = 1;
  size_t i = 0;
  const size_t n = src.size();
  while (i < n) {
    const char c = src[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      while (i < n && src[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      const uint32_t start_line = line;
      i += 2;
      while (i + 1 < n && !(src[i] == '*' && src[i + 1] == '/')) {
        if (src[i] == '\n') ++line;
        ++i;
      }
      if (i + 1 >= n) throw InputError(source_name, line_field(start_line), "unterminated /* comment; expected */");
      i += 2;
      continue;
    }
    const size_t start = i;
    if (c == '"') {
      ++i;
      while (i < n && src[i] != '"' && src[i] != '\n') ++i;
      if (i >= n || src[i] != '"') throw InputError(source_name, line_field(line), "unterminated string; expected a closing \"");
      ++i;
      tokens.push_back({PtxToken::Kind::string, src.substr(start + 1, i - start - 2), line, static_cast<uint32_t>(start)});
      continue;
    }
    if (is_word_char(c)) {
      const bool numeric = std::isdigit(static_cast<unsigned char>(c));
      while (i < n) {
        if (is_word_char(src[i])) {
          ++i;
        } else if (src[i] == ':' && i + 2 < n && src[i + 1] == ':' && is_word_char(src[i + 2])) {
          i += 2;  // cache-policy qualifiers such as .L1::no_allocate stay inside the opcode
        } else if (numeric && (src[i] == '+' || src[i] == '-') && (src[i - 1] == 'e' || src[i - 1] == 'E') &&
                   !(i - start >= 2 && src[start] == '0' && std::isalpha(static_cast<unsigned char>(src[start + 1])))) {
          ++i;  // the exponent sign of a decimal float literal such as 1.5e-3
        } else {
          break;
        }
      }
      tokens.push_back({PtxToken::Kind::word, src.substr(start, i - start), line, static_cast<uint32_t>(start)});
      continue;
    }
    static constexpr std::string_view kPunct = "{}[]()<>,;:+-@!|=*";
    if (kPunct.find(c) == std::string_view::npos)
      throw InputError(source_name, line_field(line),
                       std::string("unexpected character '") + c + "'; expected PTX (names, registers, numbers, punctuation)");
    tokens.push_back({PtxToken::Kind::punct, src.substr(i, 1), line, static_cast<uint32_t>(i)});
    ++i;
  }
  tokens.push_back({PtxToken::Kind::end, {}, line, static_cast<uint32_t>(n)});
  return tokens;
}

}  // namespace loom::simt
