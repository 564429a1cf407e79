#include "arch/simt/ptx/ptx_parser.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "arch/simt/ptx/ptx_lexer.h"
#include "arch/simt/ptx/ptx_literal.h"
#include "sim/error.h"
#include "sim/text_file.h"

namespace loom::simt {

namespace {

std::string describe(const PtxToken& t) {
  switch (t.kind) {
    case PtxToken::Kind::end: return "the end of the file";
    case PtxToken::Kind::string: return "\"" + std::string(t.text) + "\"";
    default: return "'" + std::string(t.text) + "'";
  }
}

std::string collapse_whitespace(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source_name)
      : text_(text), source_(source_name), tokens_(lex_ptx(text, source_name)) {}

  PtxModule parse_module() {
    PtxModule module;
    module.source_name = source_;
    while (!peek().kind_is_end()) {
      const PtxToken& t = peek();
      if (t.kind != PtxToken::Kind::word || t.text.empty() || t.text[0] != '.')
        fail(t, "a module directive (.version, .target, .address_size, .visible .entry, .func, .global, .const, .shared)");
      const std::string_view d = t.text;
      if (d == ".version") {
        next();
        module.version = std::string(expect_word("a version number such as 7.5"));
      } else if (d == ".target") {
        const uint32_t line = next().line;
        while (peek().line == line && (peek().kind == PtxToken::Kind::word || peek().is(','))) {
          if (peek().kind == PtxToken::Kind::word) {
            if (!module.target.empty()) module.target += ',';
            module.target += peek().text;
          }
          next();
        }
      } else if (d == ".address_size") {
        next();
        const PtxToken& size = peek();
        if (expect_integer("an address size") != 64) fail(size, "'.address_size 64' (loom executes 64-bit PTX only)");
      } else if (d == ".file" || d == ".loc") {
        skip_line(next().line);
      } else if (d == ".section") {
        next();
        while (!peek().is('{') && !peek().kind_is_end()) next();
        skip_braced_block();
      } else if (d == ".visible" || d == ".weak" || d == ".extern" || d == ".common") {
        next();  // linkage: irrelevant to a single-module simulator
      } else if (d == ".entry") {
        parse_entry(module);
      } else if (d == ".func") {
        skip_function(module);
      } else if (d == ".global" || d == ".const" || d == ".shared") {
        module.variables.push_back(parse_variable());
      } else if (d == ".pragma" || d == ".alias") {
        skip_to_semicolon();
      } else {
        fail(t, "a module directive (.version, .target, .address_size, .visible .entry, .func, .global, .const, .shared)");
      }
    }
    if (module.entries.empty())
      throw InputError(source_, "", "no kernel found; expected at least one '.visible .entry name(...) { ... }'");
    return module;
  }

 private:
  // ---- token access --------------------------------------------------------------------
  const PtxToken& peek(size_t k = 0) const { return tokens_[std::min(pos_ + k, tokens_.size() - 1)]; }
  const PtxToken& next() {
    const PtxToken& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  [[noreturn]] void fail(const PtxToken& at, const std::string& expected) const {
    throw InputError(source_, "line " + std::to_string(at.line), "expected " + expected + ", found " + describe(at));
  }
  void expect(char c, const std::string& what) {
    if (!peek().is(c)) fail(peek(), what);
    next();
  }
  bool accept(char c) {
    if (!peek().is(c)) return false;
    next();
    return true;
  }
  std::string_view expect_word(const std::string& what) {
    if (peek().kind != PtxToken::Kind::word) fail(peek(), what);
    return next().text;
  }
  uint64_t expect_integer(const std::string& what) {
    const PtxToken& t = peek();
    if (t.kind == PtxToken::Kind::word) {
      const auto lit = parse_ptx_literal(t.text, false);
      if (lit && lit->kind == PtxOperand::Kind::integer) {
        next();
        return lit->bits;
      }
    }
    fail(t, what);
  }
  void skip_line(uint32_t line) {
    while (peek().line == line && !peek().kind_is_end()) next();
  }
  void skip_to_semicolon() {
    while (!peek().is(';')) {
      if (peek().kind_is_end()) fail(peek(), "';'");
      next();
    }
    next();
  }
  void skip_braced_block() {
    const PtxToken& open = peek();
    expect('{', "'{'");
    int depth = 1;
    while (depth > 0) {
      if (peek().kind_is_end()) fail(open, "a matching '}' for this '{'");
      if (peek().is('{')) ++depth;
      if (peek().is('}')) --depth;
      next();
    }
  }
  void skip_parenthesised() {
    const PtxToken& open = peek();
    expect('(', "'('");
    int depth = 1;
    while (depth > 0) {
      if (peek().kind_is_end()) fail(open, "a matching ')' for this '('");
      if (peek().is('(')) ++depth;
      if (peek().is(')')) --depth;
      next();
    }
  }

  // ---- declarations ----------------------------------------------------------------------
  PtxType expect_type(const std::string& context) {
    const PtxToken& t = peek();
    if (t.kind == PtxToken::Kind::word && t.text.size() > 1 && t.text[0] == '.') {
      if (const auto type = parse_ptx_type(t.text.substr(1))) {
        next();
        return *type;
      }
    }
    fail(t, "a type (.b32, .u64, .f32, .pred, ...) " + context);
  }

  void skip_function(PtxModule& module) {
    next();  // .func
    if (peek().is('(')) skip_parenthesised();  // return parameters
    module.functions.push_back(std::string(expect_word("a function name after .func")));
    while (!peek().is(';') && !peek().is('{')) {
      if (peek().kind_is_end()) fail(peek(), "';' or a function body");
      if (peek().is('(')) {
        skip_parenthesised();
      } else {
        next();
      }
    }
    if (peek().is(';')) {
      next();
    } else {
      skip_braced_block();
    }
  }

  PtxParam parse_param() {
    PtxParam p;
    p.line = peek().line;
    if (!peek().is_word(".param")) fail(peek(), "'.param' (a kernel parameter declaration)");
    next();
    bool typed = false;
    while (peek().kind == PtxToken::Kind::word && peek().text[0] == '.') {
      const std::string_view d = peek().text;
      if (d == ".align") {
        next();
        p.align = static_cast<uint32_t>(expect_integer("an alignment after .align"));
      } else if (d == ".ptr" || d == ".global" || d == ".shared" || d == ".const" || d == ".local") {
        next();  // pointer attributes: documentation only
      } else {
        p.type = expect_type("for the parameter");
        typed = true;
      }
    }
    if (!typed) fail(peek(), "a parameter type (.u64, .u32, .f32, ...)");
    p.name = std::string(expect_word("a parameter name"));
    if (accept('[')) {
      p.is_array = true;
      p.count = static_cast<uint32_t>(expect_integer("an array size"));
      expect(']', "']' after the parameter's array size");
    }
    return p;
  }

  void parse_entry(PtxModule& module) {
    next();  // .entry
    PtxEntry entry;
    entry.line = peek().line;
    entry.name = std::string(expect_word("a kernel name after .entry"));
    expect('(', "'(' opening the kernel's parameter list");
    if (!peek().is(')')) {
      entry.params.push_back(parse_param());
      while (accept(',')) entry.params.push_back(parse_param());
    }
    expect(')', "',' or ')' after a kernel parameter");
    // Performance directives (.maxntid, .reqntid, .minnctapersm, .maxnreg, ...) are hints
    // for the register allocator; loom takes the launch from the user.
    while (!peek().is('{') && !peek().is(';')) {
      if (peek().kind_is_end()) fail(peek(), "'{' opening the kernel body");
      next();
    }
    if (accept(';')) return;  // a declaration without a body
    entry_ = &entry;
    parse_body();
    entry_ = nullptr;
    module.entries.push_back(std::move(entry));
  }

  void parse_register_declaration() {
    next();  // .reg
    if (peek().is_word(".v2") || peek().is_word(".v4"))
      fail(peek(), "a scalar register type (loom does not support vector registers)");
    const PtxType type = expect_type("after .reg");
    do {
      const PtxToken& name_token = peek();
      const std::string name(expect_word("a register name such as %r or %r<10>"));
      // Inline-asm blocks in nvcc's headers declare registers without '%' (.reg .f16 low,high).
      if (name[0] == '.' || std::isdigit(static_cast<unsigned char>(name[0]))) fail(name_token, "a register name such as %r1");
      if (accept('<')) {
        const uint64_t count = expect_integer("a register count");
        expect('>', "'>' after the register count");
        if (count > 1000000) fail(name_token, "at most 1,000,000 registers of one name");
        for (uint64_t i = 0; i < count; ++i) declare(name + std::to_string(i), type);
      } else {
        declare(name, type);
      }
    } while (accept(','));
    expect(';', "',' or ';' after a register name");
  }

  void declare(const std::string& name, PtxType type) {
    entry_->registers.push_back({name, type});
    scopes_.back()[name] = static_cast<int>(entry_->registers.size() - 1);
  }

  PtxVariable parse_variable() {
    PtxVariable v;
    v.line = peek().line;
    const std::string_view space = next().text;
    v.space = space == ".global"   ? PtxSpace::global
              : space == ".const"  ? PtxSpace::constant
              : space == ".local"  ? PtxSpace::local
                                   : PtxSpace::shared;
    uint64_t vector = 1;
    bool typed = false;
    while (peek().kind == PtxToken::Kind::word && peek().text[0] == '.') {
      const std::string_view d = peek().text;
      if (d == ".align") {
        next();
        v.align = static_cast<uint32_t>(expect_integer("an alignment after .align"));
      } else if (d == ".v2" || d == ".v4") {
        next();
        vector = d == ".v2" ? 2 : 4;
      } else {
        v.type = expect_type("for the variable");
        typed = true;
      }
    }
    if (!typed) fail(peek(), "a variable type such as .b8 or .f32");
    v.name = std::string(expect_word("a variable name"));
    v.count = vector;
    while (accept('[')) {
      if (accept(']')) {
        v.unsized = true;
        continue;
      }
      v.count *= expect_integer("an array size");
      expect(']', "']' after the array size");
    }
    if (v.align == 0) v.align = static_cast<uint32_t>(std::max(1, type_bytes(v.type)));
    if (accept('=')) parse_initializer(v);
    expect(';', "';' after the variable declaration");
    return v;
  }

  void parse_initializer(PtxVariable& v) {
    auto element = [&] {
      const bool negative = accept('-');
      const PtxToken& t = peek();
      const auto lit = t.kind == PtxToken::Kind::word ? parse_ptx_literal(t.text, negative) : std::nullopt;
      if (!lit) fail(t, "a numeric initializer (loom does not support addresses in initializers)");
      next();
      const uint64_t bits = literal_as(*lit, v.type);
      for (int b = 0; b < type_bytes(v.type); ++b) v.initializer.push_back(static_cast<uint8_t>(bits >> (8 * b)));
    };
    if (!peek().is('{')) {
      element();
    } else {
      int depth = 0;
      do {
        if (accept('{')) {
          ++depth;
          continue;
        }
        if (accept('}')) {
          --depth;
          continue;
        }
        if (accept(',')) continue;
        element();
      } while (depth > 0);
    }
    if (v.initializer.size() > v.bytes()) fail(peek(), "no more initializer values than the variable holds");
  }

  // ---- body -----------------------------------------------------------------------------
  void parse_body() {
    expect('{', "'{' opening the kernel body");
    scopes_.assign(1, {});
    while (true) {
      const PtxToken& t = peek();
      if (t.is('}')) {
        next();
        scopes_.pop_back();
        if (scopes_.empty()) return;
        continue;
      }
      if (t.is('{')) {
        next();
        scopes_.emplace_back();
        continue;
      }
      if (t.kind_is_end()) fail(t, "'}' closing the kernel body");
      if (t.is('@')) {
        parse_instruction();
        continue;
      }
      if (t.kind != PtxToken::Kind::word) fail(t, "an instruction, a label or a declaration");
      if (t.text[0] == '.') {
        const std::string_view d = t.text;
        if (d == ".reg") {
          parse_register_declaration();
        } else if (d == ".shared" || d == ".local" || d == ".const" || d == ".global") {
          entry_->variables.push_back(parse_variable());
        } else if (d == ".pragma") {
          skip_to_semicolon();
        } else if (d == ".loc" || d == ".file") {
          skip_line(next().line);
        } else {
          fail(t, "an instruction, a label or a declaration (.reg, .shared, .local, .pragma)");
        }
        continue;
      }
      if (peek(1).is(':')) {
        if (t.text[0] == '%') fail(t, "a label name (labels do not start with '%')");
        PtxStatement label;
        label.line = t.line;
        label.label = std::string(t.text);
        entry_->body.push_back(std::move(label));
        next();
        next();
        continue;
      }
      parse_instruction();
    }
  }

  void parse_instruction() {
    PtxStatement s;
    const uint32_t start = peek().offset;
    s.line = peek().line;
    if (accept('@')) {
      s.guard_negated = accept('!');
      const PtxToken& g = peek();
      const PtxOperand guard = parse_operand();
      if (guard.kind != PtxOperand::Kind::reg || entry_->registers[static_cast<size_t>(guard.reg)].type != PtxType::pred)
        fail(g, "a predicate register after '@'");
      s.guard = guard.reg;
    }
    const PtxToken& op = peek();
    s.opcode = std::string(expect_word("an instruction opcode"));
    if (s.opcode[0] == '%' || s.opcode[0] == '.') fail(op, "an instruction opcode");
    if (!peek().is(';')) {
      s.operands.push_back(parse_operand());
      while (accept(',')) s.operands.push_back(parse_operand());
    }
    if (!peek().is(';')) fail(peek(), "',' or ';' after an operand of '" + s.opcode + "'");
    s.text = collapse_whitespace(text_.substr(start, peek().offset - start));
    next();
    entry_->body.push_back(std::move(s));
  }

  int lookup_register(std::string_view name) const {
    const std::string key(name);
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      const auto found = it->find(key);
      if (found != it->end()) return found->second;
    }
    return -1;
  }

  PtxOperand parse_operand() {
    PtxOperand op;
    const PtxToken& t = peek();
    if (accept('{')) {
      op.kind = PtxOperand::Kind::vector;
      if (!peek().is('}')) {
        op.elements.push_back(parse_operand());
        while (accept(',')) op.elements.push_back(parse_operand());
      }
      expect('}', "',' or '}' in a vector operand");
      return op;
    }
    if (accept('(')) {  // call's argument lists: parsed so the decoder can name the instruction
      op.kind = PtxOperand::Kind::vector;
      if (!peek().is(')')) {
        op.elements.push_back(parse_operand());
        while (accept(',')) op.elements.push_back(parse_operand());
      }
      expect(')', "',' or ')' in a parenthesised operand list");
      return op;
    }
    if (accept('[')) return parse_address(t);
    if (accept('!')) {
      op = parse_operand();
      if (op.kind != PtxOperand::Kind::reg) fail(t, "a predicate register after '!'");
      op.negated = true;
      return op;
    }
    if (accept('-')) {
      const PtxToken& n = peek();
      const auto lit = n.kind == PtxToken::Kind::word ? parse_ptx_literal(n.text, true) : std::nullopt;
      if (!lit) fail(n, "a number after '-'");
      next();
      return *lit;
    }
    if (t.kind != PtxToken::Kind::word) fail(t, "an operand (register, number, name, [address] or {vector})");
    const std::string_view w = t.text;
    if (w == "_") {
      next();
      op.kind = PtxOperand::Kind::sink;
      return op;
    }
    if (w[0] == '%') {
      next();
      const int reg = lookup_register(w);
      if (reg >= 0) {
        op.kind = PtxOperand::Kind::reg;
        op.reg = reg;
        if (accept('|')) {
          const PtxToken& second = peek();
          const int reg2 = lookup_register(expect_word("a second destination register after '|'"));
          if (reg2 < 0) fail(second, "a declared register after '|'");
          op.reg2 = reg2;
        }
        return op;
      }
      if (const auto special = parse_special_register(w)) {
        op.kind = PtxOperand::Kind::special;
        op.special = *special;
        return op;
      }
      throw InputError(source_, "line " + std::to_string(t.line),
                       "register '" + std::string(w) + "' is not declared; expected a register declared with .reg "
                       "or a special register such as %tid.x");
    }
    if (std::isdigit(static_cast<unsigned char>(w[0]))) {
      const auto lit = parse_ptx_literal(w, false);
      if (!lit) fail(t, "a number (decimal, 0x hex, 0fXXXXXXXX f32, 0dXXXXXXXXXXXXXXXX f64)");
      next();
      return *lit;
    }
    next();
    if (const int reg = lookup_register(w); reg >= 0) {  // a register declared without '%'
      op.kind = PtxOperand::Kind::reg;
      op.reg = reg;
      return op;
    }
    op.kind = PtxOperand::Kind::symbol;
    op.symbol = std::string(w);
    return op;
  }

  PtxOperand parse_address(const PtxToken& open) {
    PtxOperand op;
    op.kind = PtxOperand::Kind::address;
    const PtxToken& base = peek();
    if (base.kind != PtxToken::Kind::word) fail(base, "a register, a variable name or a number inside [ ]");
    if (base.text[0] == '%' || lookup_register(base.text) >= 0) {
      op.reg = lookup_register(base.text);
      if (op.reg < 0) fail(base, "a declared register as the address base");
      next();
    } else if (std::isdigit(static_cast<unsigned char>(base.text[0]))) {
      op.offset = static_cast<int64_t>(expect_integer("an integer address"));
    } else {
      op.symbol = std::string(base.text);
      next();
    }
    if (peek().is('+') || peek().is('-')) {
      bool negative = next().is('-');
      if (accept('-')) negative = !negative;  // nvcc writes [%rd1+-4]
      const PtxToken& n = peek();
      const auto lit = n.kind == PtxToken::Kind::word ? parse_ptx_literal(n.text, negative) : std::nullopt;
      if (!lit || lit->kind != PtxOperand::Kind::integer) fail(n, "an integer offset in the address");
      next();
      op.offset += static_cast<int64_t>(lit->bits);
    }
    if (!peek().is(']')) fail(peek(), "']' closing the address opened at line " + std::to_string(open.line));
    next();
    return op;
  }

  std::string_view text_;
  std::string source_;
  std::vector<PtxToken> tokens_;
  size_t pos_ = 0;
  PtxEntry* entry_ = nullptr;
  std::vector<std::unordered_map<std::string, int>> scopes_;
};

}  // namespace

PtxModule parse_ptx(std::string_view text, const std::string& source_name) {
  return Parser(text, source_name).parse_module();
}

PtxModule load_ptx_file(const std::string& path) { return parse_ptx(read_text_file(path), path); }

const PtxEntry& PtxModule::entry(const std::string& name) const {
  if (name.empty() && entries.size() == 1) return entries.front();
  std::string available;
  for (const PtxEntry& e : entries) {
    if (e.name == name) return e;
    available += (available.empty() ? "" : ", ") + e.name;
  }
  if (name.empty())
    throw InputError(source_name, "kernel", "the file has " + std::to_string(entries.size()) +
                                                " kernels; name one of: " + available);
  for (const std::string& f : functions)
    if (f == name)
      throw InputError(source_name, "kernel", "'" + name + "' is a .func (device function), not a kernel; expected one of: " + available);
  throw InputError(source_name, "kernel", "no kernel named '" + name + "'; expected one of: " + available);
}

}  // namespace loom::simt
