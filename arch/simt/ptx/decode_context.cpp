#include "arch/simt/ptx/decode_context.h"

#include <algorithm>

#include "arch/simt/ptx/address_windows.h"
#include "arch/simt/ptx/ptx_literal.h"
#include "sim/error.h"

namespace loom::simt {

bool Opcode::has(std::string_view mod) const { return std::find(mods.begin(), mods.end(), mod) != mods.end(); }

Opcode split_opcode(const std::string& text) {
  Opcode op;
  size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    size_t dot = text.find('.', start);
    if (dot == std::string::npos) dot = text.size();
    const std::string part = text.substr(start, dot - start);
    if (first) {
      op.base = part;
      first = false;
    } else if (const auto type = parse_ptx_type(part)) {
      op.types.push_back(*type);
    } else {
      op.mods.push_back(part);
    }
    start = dot + 1;
  }
  return op;
}

namespace {
void visit_operand(const PtxOperand& op, std::vector<bool>& used_regs, std::vector<SpecialRegister>& specials,
                   std::vector<std::string>& symbols) {
  if (op.reg >= 0) used_regs[static_cast<size_t>(op.reg)] = true;
  if (op.reg2 >= 0) used_regs[static_cast<size_t>(op.reg2)] = true;
  if (op.kind == PtxOperand::Kind::special && !is_time_register(op.special) &&
      std::find(specials.begin(), specials.end(), op.special) == specials.end())
    specials.push_back(op.special);
  if (!op.symbol.empty()) symbols.push_back(op.symbol);
  for (const PtxOperand& e : op.elements) visit_operand(e, used_regs, specials, symbols);
}
uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }
}  // namespace

DecodeContext::DecodeContext(const PtxModule& module, const PtxEntry& entry, PtxKernel& kernel)
    : module_(module), entry_(entry), kernel_(kernel) {
  kernel_.name = entry.name;
  kernel_.source_name = module.source_name;
  map_registers_and_symbols();
  layout_params();
  layout_variables();
  uint32_t pc = 0;
  for (const PtxStatement& s : entry.body) {
    if (!s.label.empty()) {
      if (!labels_.emplace(s.label, pc).second)
        throw InputError(module.source_name, "line " + std::to_string(s.line),
                         "label '" + s.label + "' is defined twice; expected unique labels");
    } else {
      ++pc;
    }
  }
}

void DecodeContext::map_registers_and_symbols() {
  std::vector<bool> used(entry_.registers.size(), false);
  std::vector<SpecialRegister> specials;
  std::vector<std::string> symbols;
  for (const PtxStatement& s : entry_.body) {
    if (s.guard >= 0) used[static_cast<size_t>(s.guard)] = true;
    for (const PtxOperand& op : s.operands) visit_operand(op, used, specials, symbols);
  }
  register_id_.assign(entry_.registers.size(), -1);
  for (size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) continue;
    register_id_[i] = static_cast<int>(kernel_.registers.size());
    kernel_.registers.push_back(entry_.registers[i]);
  }
  if (kernel_.registers.size() > 60000)
    throw InputError(module_.source_name, "kernel '" + entry_.name + "'",
                     "uses " + std::to_string(kernel_.registers.size()) + " registers; expected at most 60,000");
  kernel_.specials = specials;
  for (size_t i = 0; i < specials.size(); ++i)
    special_slot_[static_cast<int>(specials[i])] = static_cast<uint32_t>(kernel_.registers.size() + i);
  kernel_.special_slot = static_cast<uint32_t>(kernel_.registers.size());
  kernel_.scratch_slot = static_cast<uint32_t>(kernel_.registers.size() + specials.size());
  // Only variables the kernel names take space (a module may declare several kernels' arrays).
  std::sort(symbols.begin(), symbols.end());
  symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
  for (const std::string& name : symbols) symbols_[name] = {MemorySpace::none, 0};
}

void DecodeContext::layout_params() {
  uint32_t offset = 0;
  for (const PtxParam& p : entry_.params) {
    KernelParam k;
    k.name = p.name;
    k.type = p.type;
    k.is_array = p.is_array;
    k.bytes = static_cast<uint32_t>(type_bytes(p.type)) * p.count;
    k.align = p.align ? p.align : static_cast<uint32_t>(std::max(1, type_bytes(p.type)));
    offset = static_cast<uint32_t>(align_up(offset, k.align));
    k.offset = offset;
    offset += k.bytes;
    kernel_.params.push_back(k);
    symbols_[p.name] = {MemorySpace::param, k.offset};
  }
  kernel_.param_bytes = offset;
}

void DecodeContext::layout_variables() {
  std::vector<const PtxVariable*> all;
  for (const PtxVariable& v : module_.variables) all.push_back(&v);
  for (const PtxVariable& v : entry_.variables) all.push_back(&v);
  uint64_t shared = 0, local = 0;
  std::vector<const PtxVariable*> dynamic;
  for (const PtxVariable* v : all) {
    const auto referenced = symbols_.find(v->name);
    if (v->space == PtxSpace::constant) {
      // .const data is module-wide; lay it all out so addresses do not depend on the kernel.
      const uint64_t at = align_up(kernel_.constant_bank.size(), v->align);
      kernel_.constant_bank.resize(at + v->bytes(), 0);
      std::copy(v->initializer.begin(), v->initializer.end(), kernel_.constant_bank.begin() + static_cast<long>(at));
      if (referenced != symbols_.end()) referenced->second = {MemorySpace::constant, at};
      continue;
    }
    if (referenced == symbols_.end()) continue;
    if (v->space == PtxSpace::global)
      throw InputError(module_.source_name, "line " + std::to_string(v->line),
                       "module-scope .global variable '" + v->name + "' is not supported; expected buffers passed as "
                       "kernel parameters (__device__ variables cannot be simulated)");
    if (v->space == PtxSpace::shared && v->unsized) {
      dynamic.push_back(v);
      continue;
    }
    if (v->space == PtxSpace::shared) {
      shared = align_up(shared, v->align);
      referenced->second = {MemorySpace::shared, shared};
      kernel_.shared.push_back({v->name, static_cast<uint32_t>(shared), static_cast<uint32_t>(v->bytes()), false});
      shared += v->bytes();
    } else {
      local = align_up(local, v->align);
      referenced->second = {MemorySpace::local, local};
      local += v->bytes();
    }
  }
  if (shared > (uint64_t{1} << 31) || local > (uint64_t{1} << 24))
    throw InputError(module_.source_name, "kernel '" + entry_.name + "'", "declares too much shared or local memory");
  kernel_.static_shared_bytes = static_cast<uint32_t>(shared);
  kernel_.local_bytes = static_cast<uint32_t>(align_up(local, 4));
  for (const PtxVariable* v : dynamic) kernel_.dynamic_shared_align = std::max(kernel_.dynamic_shared_align, v->align);
  for (const PtxVariable* v : dynamic) {
    symbols_[v->name] = {MemorySpace::shared, kernel_.dynamic_shared_offset()};
    kernel_.shared.push_back({v->name, kernel_.dynamic_shared_offset(), 0, true});
  }
}

void DecodeContext::begin(const PtxStatement& statement, DecodedInstruction& decoded, StaticInstruction& info) {
  statement_ = &statement;
  opcode_ = split_opcode(statement.opcode);
  decoded_ = &decoded;
  info_ = &info;
  srcs_.clear();
  dsts_.clear();
  if (statement.guard >= 0) {
    decoded.guard = static_cast<uint32_t>(register_id_[static_cast<size_t>(statement.guard)]);
    decoded.guard_negated = statement.guard_negated;
  }
}

namespace {
// Opcodes whose handlers compute each active lane from that lane's operands alone.
bool lane_local_opcode(std::string_view base) {
  static constexpr std::string_view kLaneLocal[] = {"add", "sub",  "mul", "mad", "mul24", "mad24", "and", "or",
                                                    "xor", "not",  "shl", "shr", "cvt",   "cvta",  "mov", "neg",
                                                    "abs", "cnot", "min", "max"};
  for (const std::string_view name : kLaneLocal)
    if (base == name) return true;
  return false;
}
}  // namespace

void DecodeContext::finish() {
  // A move from %clock reads the warp's clock, not an operand.
  decoded_->lane_local = decoded_->control == Control::none && lane_local_opcode(opcode_.base) &&
                         decoded_->exec != clock_handler();
  // The guard predicate is read too; it goes last so that an MMA's 24 operands fit first.
  if (decoded_->guard != kNoOperand) note_src(decoded_->guard);
  info_->n_src = static_cast<uint8_t>(std::min<size_t>(srcs_.size(), StaticInstruction::kMaxSrc));
  for (size_t i = 0; i < info_->n_src; ++i) info_->src[i] = srcs_[i];
  info_->n_dst = static_cast<uint8_t>(std::min<size_t>(dsts_.size(), StaticInstruction::kMaxDst));
  for (size_t i = 0; i < info_->n_dst; ++i) info_->dst[i] = dsts_[i];
  info_->line = statement_->line;
  info_->text = statement_->text;
}

void DecodeContext::note_src(uint32_t storage) {
  if (storage >= kernel_.registers.size()) return;  // specials, scratch and constants are not registers
  const auto id = static_cast<uint16_t>(storage);
  if (std::find(srcs_.begin(), srcs_.end(), id) == srcs_.end()) srcs_.push_back(id);
}
void DecodeContext::note_dst(uint32_t storage) {
  if (storage >= kernel_.registers.size()) return;
  const auto id = static_cast<uint16_t>(storage);
  if (std::find(dsts_.begin(), dsts_.end(), id) == dsts_.end()) dsts_.push_back(id);
}

void DecodeContext::fail(const std::string& expected) const {
  throw InputError(module_.source_name, "line " + std::to_string(statement_->line),
                   "in '" + statement_->text + "': expected " + expected);
}

namespace {
std::string supported_list() {
  std::vector<std::string> names;
  for (const auto* table : {&arithmetic_decoders(), &move_decoders(), &memory_decoders(), &control_decoders()})
    for (const auto& entry : *table) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}
}  // namespace

void DecodeContext::unsupported(const std::string& why) const {
  throw InputError(module_.source_name, "line " + std::to_string(statement_->line),
                   "unsupported PTX instruction '" + statement_->opcode + "' at line " + std::to_string(statement_->line) +
                       " ('" + statement_->text + "')" + (why.empty() ? "" : ": " + why) + "; supported: " + supported_list());
}

void DecodeContext::expect_operands(size_t count, const char* shape) const {
  if (statement_->operands.size() != count)
    fail(std::to_string(count) + " operands (" + shape + "), found " + std::to_string(statement_->operands.size()));
}

void DecodeContext::allow_mods(std::initializer_list<std::string_view> allowed) const {
  for (const std::string& m : opcode_.mods)
    if (std::find(allowed.begin(), allowed.end(), m) == allowed.end())
      unsupported("modifier '." + m + "' is not modelled");
}

PtxType DecodeContext::one_type() const {
  if (opcode_.types.size() != 1) fail("exactly one type suffix such as .u32 or .f32");
  return opcode_.types.front();
}

uint32_t DecodeContext::constant(uint64_t bits) {
  const auto [it, inserted] = constant_index_.emplace(bits, static_cast<uint32_t>(kernel_.constants.size() / 32));
  if (inserted) kernel_.constants.insert(kernel_.constants.end(), 32, bits);
  return kConstantFlag | it->second;
}

uint64_t DecodeContext::symbol_address(const std::string& name, MemorySpace& space) const {
  const auto it = symbols_.find(name);
  if (it != symbols_.end() && it->second.space != MemorySpace::none) {
    space = it->second.space;
    return it->second.address;
  }
  if (labels_.count(name)) fail("a register or a value, not the label '" + name + "'");
  for (const std::string& f : module_.functions)
    if (f == name) unsupported("device functions (.func '" + name + "') are not modelled; inline them (__forceinline__)");
  fail("a declared variable or parameter; '" + name + "' is not declared");
}

uint32_t DecodeContext::read(const PtxOperand& op, PtxType type) {
  switch (op.kind) {
    case PtxOperand::Kind::reg: {
      if (op.negated) fail("no '!' on a non-predicate operand");
      if (op.reg2 >= 0) fail("a single register, not a '|' pair, as a source");
      const auto storage = static_cast<uint32_t>(register_id_[static_cast<size_t>(op.reg)]);
      note_src(storage);
      return storage;
    }
    case PtxOperand::Kind::special:
      if (is_time_register(op.special)) unsupported("clock registers can only be read with mov");
      return special_slot_.at(static_cast<int>(op.special));
    case PtxOperand::Kind::integer:
    case PtxOperand::Kind::f32:
    case PtxOperand::Kind::f64:
      return constant(literal_as(op, type));
    case PtxOperand::Kind::symbol: {
      MemorySpace space;
      return constant(symbol_address(op.symbol, space) & type_mask(type));
    }
    default:
      fail("a register, a number or a name as a source operand");
  }
}

uint32_t DecodeContext::read_predicate(const PtxOperand& op, bool& negated) {
  negated = op.negated;
  if (op.kind == PtxOperand::Kind::integer) return constant(op.bits != 0);
  if (op.kind != PtxOperand::Kind::reg || entry_.registers[static_cast<size_t>(op.reg)].type != PtxType::pred)
    fail("a predicate register (.pred)");
  const auto storage = static_cast<uint32_t>(register_id_[static_cast<size_t>(op.reg)]);
  note_src(storage);
  return storage;
}

uint32_t DecodeContext::write(const PtxOperand& op) {
  if (op.kind == PtxOperand::Kind::sink) return kernel_.scratch_slot;
  if (op.kind != PtxOperand::Kind::reg || op.negated || op.reg2 >= 0) fail("a register as the destination");
  const auto storage = static_cast<uint32_t>(register_id_[static_cast<size_t>(op.reg)]);
  note_dst(storage);
  return storage;
}

void DecodeContext::write_destination_pair(const PtxOperand& op) {
  PtxOperand first = op;
  first.reg2 = -1;
  DecodedInstruction& decoded = d();
  decoded.dst[0] = write(first);
  decoded.n_dst = 1;
  if (op.reg2 < 0) return;
  PtxOperand second;
  second.kind = PtxOperand::Kind::reg;
  second.reg = op.reg2;
  decoded.dst[1] = write(second);
  decoded.n_dst = 2;
  decoded.flags |= DecodedInstruction::kFlagSecondDst;
}

PtxType DecodeContext::register_type(const PtxOperand& op) const {
  if (op.kind != PtxOperand::Kind::reg) return PtxType::none;
  return entry_.registers[static_cast<size_t>(op.reg)].type;
}

void DecodeContext::set_address(const PtxOperand& op, MemorySpace space) {
  if (op.kind != PtxOperand::Kind::address) fail("an address in [ ] such as [%rd1+8]");
  DecodedInstruction& d = *decoded_;
  d.offset = op.offset;
  d.address = kNoOperand;
  if (op.reg >= 0) {
    d.address = static_cast<uint32_t>(register_id_[static_cast<size_t>(op.reg)]);
    note_src(d.address);
  } else if (!op.symbol.empty()) {
    MemorySpace symbol_space;
    uint64_t at = symbol_address(op.symbol, symbol_space);
    if (space == MemorySpace::none) {  // a generic access to a named variable
      if (symbol_space == MemorySpace::shared) at += kSharedWindow;
      else if (symbol_space == MemorySpace::local) at += kLocalWindow;
      else unsupported("generic access to a " + std::string(symbol_space == MemorySpace::param ? "parameter" : "constant") + " symbol");
    } else if (symbol_space != space) {
      fail("a " + std::string(space == MemorySpace::shared ? "shared" : space == MemorySpace::param ? "param" : "matching") +
           "-space name in the address; '" + op.symbol + "' is in another state space");
    }
    d.offset += static_cast<int64_t>(at);
  }
}

void DecodeContext::classify(Unit unit, EnergyClass energy) {
  info_->unit = unit;
  info_->energy = energy;
}

void DecodeContext::classify_arithmetic(PtxType type) {
  switch (type_class(type)) {
    case TypeClass::float_point:
      if (type == PtxType::f64) classify(Unit::fp64, EnergyClass::fp64_op);
      else classify(Unit::fp32, EnergyClass::fp32_op);
      break;
    case TypeClass::half: classify(Unit::fp16, EnergyClass::fp16_op); break;
    default: classify(Unit::int_alu, EnergyClass::int_op); break;
  }
}

uint32_t DecodeContext::pc_of_label(const std::string& label) const {
  const auto it = labels_.find(label);
  if (it == labels_.end()) fail("a label defined in this kernel; '" + label + "' is not");
  return it->second;
}

}  // namespace loom::simt
