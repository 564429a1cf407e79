// Decoders for memory instructions: ld/ldu/st, atom/red and the warp-level matrix
// instructions (wmma.load/store/mma, mma.sync).
#include <optional>

#include "arch/simt/ptx/decode_context.h"

namespace loom::simt {

namespace {

using D = DecodeContext;

// The qualifiers that make an access's order with other threads' accesses part of its
// meaning (a flag, volatile data, a lock); the timing model's run-ahead needs it to be
// unobservable (cta_run_ahead.h).
bool orders_memory(std::string_view m) {
  return m == "volatile" || m == "relaxed" || m == "acquire" || m == "release" || m == "acq_rel";
}

// Qualifiers that order or cache memory accesses but do not change what a single-threaded
// functional model computes (the ordering ones are also marked: orders_memory). Of the
// cache hints the timing model honours only a load's .cg (Access::cache_global); the
// others time as the default .ca.
bool is_memory_hint(std::string_view m) {
  static const std::string_view kHints[] = {"nc",  "ca",  "cg",  "cs",  "lu",      "cv",      "wb",    "wt",      "weak",
                                            "sys", "gpu", "cta", "cluster", "unified", "noftz", "aligned", "sync"};
  if (orders_memory(m)) return true;
  for (std::string_view h : kHints)
    if (m == h) return true;
  return (m.rfind("L1::", 0) == 0 || m.rfind("L2::", 0) == 0) && m != "L2::cache_hint";
}

std::optional<MemorySpace> space_of(std::string_view m) {
  if (m == "global") return MemorySpace::global;
  if (m == "shared" || m == "shared::cta") return MemorySpace::shared;
  if (m == "local") return MemorySpace::local;
  if (m == "param" || m == "param::entry") return MemorySpace::param;
  if (m == "const") return MemorySpace::constant;
  return std::nullopt;
}

struct Access {
  MemorySpace space = MemorySpace::none;  // none = generic
  int vec = 1;
  bool cache_global = false;      // .cg: cache in L2, not in L1
  std::vector<std::string> rest;  // modifiers left for the caller
};

Access parse_access(D& x) {
  Access a;
  bool spaced = false;
  for (const std::string& m : x.opcode().mods) {
    if (orders_memory(m)) x.info().orders_memory = true;
    if (const auto s = space_of(m); s && !spaced) {
      a.space = *s;
      spaced = true;
    } else if (m == "v2" || m == "v4") {
      a.vec = m == "v2" ? 2 : 4;
    } else if (m == "v8") {
      x.unsupported(".v8 vectors are not modelled");
    } else if (m == "shared::cluster") {
      x.unsupported("distributed shared memory (.shared::cluster) is not modelled");
    } else if (m == "L2::cache_hint") {
      x.unsupported("explicit cache policies (.L2::cache_hint) are not modelled");
    } else if (m == "cg") {
      a.cache_global = true;
    } else if (!is_memory_hint(m)) {
      a.rest.push_back(m);
    }
  }
  return a;
}

EnergyClass load_energy(MemorySpace s) {
  switch (s) {
    case MemorySpace::shared: return EnergyClass::load_shared;
    case MemorySpace::param:
    case MemorySpace::constant: return EnergyClass::load_other;
    default: return EnergyClass::load_global;  // global, local (DRAM-backed) and generic
  }
}
EnergyClass store_energy(MemorySpace s) {
  return s == MemorySpace::shared ? EnergyClass::store_shared : EnergyClass::store_global;
}

// Generic accesses are reported as global in the static record (ExecutedInstruction::space
// says where each execution resolved).
MemorySpace static_space(MemorySpace s) { return s == MemorySpace::none ? MemorySpace::global : s; }

int element_bytes(D& x, PtxType t) {
  if (t == PtxType::pred || t == PtxType::none) x.fail("a memory type such as .u32 or .f32");
  if (t == PtxType::b128) x.unsupported(".b128 accesses are not modelled");
  return type_bytes(t);
}

// An ld or st handler and its narrow twins (register_slots.h).
void set_handlers(DecodedInstruction& d, const MemoryHandlers& h) {
  d.exec = h.wide;
  d.narrow = h.narrow_values;
  d.narrow_address = h.narrow_address;
  d.narrow_both = h.narrow_both;
}

void decode_load(D& x) {
  const Access a = parse_access(x);
  if (!a.rest.empty()) x.unsupported("modifier '." + a.rest.front() + "' is not modelled");
  const PtxType t = x.one_type();
  const int bytes = element_bytes(x, t);
  x.expect_operands(2, "d, [a]");
  DecodedInstruction& d = x.d();
  set_handlers(d, select_load(a.space, bytes, a.vec));
  d.vec = static_cast<uint8_t>(a.vec);
  d.type = t;
  const PtxOperand& to = x.operand(0);
  if (a.vec == 1) {
    d.dst[0] = x.write(to);
    d.n_dst = 1;
  } else {
    if (to.kind != PtxOperand::Kind::vector || to.elements.size() != static_cast<size_t>(a.vec))
      x.fail("a vector of " + std::to_string(a.vec) + " destination registers");
    for (int k = 0; k < a.vec; ++k) d.dst[k] = x.write(to.elements[static_cast<size_t>(k)]);
    d.n_dst = static_cast<uint8_t>(a.vec);
  }
  const PtxType reg = x.register_type(a.vec == 1 ? to : to.elements.front());
  d.aux = type_mask(reg == PtxType::none || type_bytes(reg) < bytes ? t : reg);
  if (is_signed_type(t)) d.flags |= DecodedInstruction::kFlagSigned;
  x.set_address(x.operand(1), a.space);
  x.classify(Unit::ldst, load_energy(a.space));
  x.info().space = static_space(a.space);
  // ld.global.cg and a generic ld.cg (timed as global) skip L1; elsewhere .cg means nothing.
  x.info().bypass_l1 = a.cache_global && x.info().space == MemorySpace::global;
}

void decode_store(D& x) {
  const Access a = parse_access(x);
  if (!a.rest.empty()) x.unsupported("modifier '." + a.rest.front() + "' is not modelled");
  if (a.space == MemorySpace::param || a.space == MemorySpace::constant)
    x.unsupported("stores to ." + std::string(a.space == MemorySpace::param ? "param" : "const") + " space (device calls) are not modelled");
  const PtxType t = x.one_type();
  const int bytes = element_bytes(x, t);
  x.expect_operands(2, "[a], b");
  DecodedInstruction& d = x.d();
  set_handlers(d, select_store(a.space, bytes, a.vec));
  d.vec = static_cast<uint8_t>(a.vec);
  d.type = t;
  x.set_address(x.operand(0), a.space);
  const PtxOperand& from = x.operand(1);
  if (a.vec == 1) {
    d.src[0] = x.read(from, t);
    d.n_src = 1;
  } else {
    if (from.kind != PtxOperand::Kind::vector || from.elements.size() != static_cast<size_t>(a.vec))
      x.fail("a vector of " + std::to_string(a.vec) + " source values");
    for (int k = 0; k < a.vec; ++k) d.src[k] = x.read(from.elements[static_cast<size_t>(k)], t);
    d.n_src = static_cast<uint8_t>(a.vec);
  }
  x.classify(Unit::ldst, store_energy(a.space));
  x.info().space = static_space(a.space);
  x.info().is_store = true;
}

std::optional<AtomicOp> atomic_op(std::string_view m) {
  static const std::pair<std::string_view, AtomicOp> kOps[] = {
      {"add", AtomicOp::add}, {"min", AtomicOp::min}, {"max", AtomicOp::max}, {"exch", AtomicOp::exch},
      {"cas", AtomicOp::cas}, {"and", AtomicOp::and_}, {"or", AtomicOp::or_}, {"xor", AtomicOp::xor_},
      {"inc", AtomicOp::inc}, {"dec", AtomicOp::dec}};
  for (const auto& [name, op] : kOps)
    if (m == name) return op;
  return std::nullopt;
}

// atom.space.op.type d, [a], b[, c] and red.space.op.type [a], b
void atomic(D& x, bool returns) {
  const Access a = parse_access(x);
  if (a.vec != 1) x.unsupported("vector atomics are not modelled");
  std::optional<AtomicOp> op;
  for (const std::string& m : a.rest) {
    if (const auto o = atomic_op(m); o && !op) op = o;
    else x.unsupported("modifier '." + m + "' is not modelled");
  }
  if (!op) x.fail("an atomic operation (add, min, max, exch, cas, and, or, xor, inc, dec)");
  if (a.space != MemorySpace::global && a.space != MemorySpace::shared && a.space != MemorySpace::none)
    x.fail("atomics on global, shared or generic addresses");
  const PtxType t = x.one_type();
  const bool is_float = is_float_type(t) || is_half_type(t);
  if (t == PtxType::pred || t == PtxType::b128 || type_bytes(t) < 2 ||
      (is_float && *op != AtomicOp::add && *op != AtomicOp::min && *op != AtomicOp::max && *op != AtomicOp::exch) ||
      (type_bytes(t) == 2 && !is_float))
    x.unsupported(std::string("atomic ") + ptx_type_name(t) + " with this operation is not modelled");
  const size_t values = *op == AtomicOp::cas ? 2 : 1;
  const size_t first = returns ? 1 : 0;
  x.expect_operands(first + 1 + values, returns ? (values == 2 ? "d, [a], b, c" : "d, [a], b") : "[a], b");
  DecodedInstruction& d = x.d();
  d.exec = select_atomic(a.space, returns);
  d.op = static_cast<uint8_t>(*op);
  d.type = t;
  if (returns) {
    d.dst[0] = x.write(x.operand(0));
    d.n_dst = 1;
  }
  x.set_address(x.operand(first), a.space);
  for (size_t k = 0; k < values; ++k) d.src[k] = x.read(x.operand(first + 1 + k), t);
  d.n_src = static_cast<uint8_t>(values);
  x.classify(Unit::ldst, returns ? load_energy(a.space) : store_energy(a.space));
  x.info().space = static_space(a.space);
  x.info().is_store = !returns;
  x.info().is_atomic = true;
}
void decode_atom(D& x) { atomic(x, true); }
void decode_red(D& x) { atomic(x, false); }

// ---- warp-level matrix instructions -------------------------------------------------------

std::vector<uint32_t> fragment(D& x, const PtxOperand& op, size_t count, bool destination, PtxType type) {
  if (op.kind != PtxOperand::Kind::vector || op.elements.size() != count)
    x.fail("a fragment of " + std::to_string(count) + " registers in { }");
  std::vector<uint32_t> regs;
  for (const PtxOperand& e : op.elements) regs.push_back(destination ? x.write(e) : x.read(e, type));
  return regs;
}

size_t fragment_registers(char matrix, PtxType type) {
  if (matrix == 'a' || matrix == 'b') return 8;
  return type == PtxType::f32 ? 8 : 4;
}

// wmma.load.{a,b,c}.sync.aligned.{row,col}.m16n16k16[.space].type and wmma.store.d...
void wmma_memory(D& x, bool load) {
  const Opcode& op = x.opcode();
  char matrix = 0;
  int layout = -1;
  bool shape = false;
  MemorySpace space = MemorySpace::none;
  for (size_t i = 1; i < op.mods.size(); ++i) {
    const std::string& m = op.mods[i];
    if ((m == "a" || m == "b" || m == "c" || m == "d") && !matrix) matrix = m[0];
    else if (m == "row" || m == "col") layout = m == "col";
    else if (m == "m16n16k16") shape = true;
    else if (const auto s = space_of(m); s && (*s == MemorySpace::global || *s == MemorySpace::shared)) space = *s;
    else if (m != "sync" && m != "aligned")
      x.unsupported(m[0] == 'm' ? "shape ." + m + " (loom models m16n16k16)" : "modifier '." + m + "' is not modelled");
  }
  if (!matrix || (load && matrix == 'd') || (!load && matrix != 'd')) x.fail(load ? "wmma.load.{a,b,c}" : "wmma.store.d");
  if (layout < 0 || !shape) x.fail("a layout (.row or .col) and a shape (.m16n16k16)");
  const PtxType t = x.one_type();
  const bool input = matrix == 'a' || matrix == 'b';
  if (input ? (t != PtxType::f16 && t != PtxType::bf16) : (t != PtxType::f16 && t != PtxType::f32))
    x.unsupported(std::string("element type .") + ptx_type_name(t) + " for this fragment");
  const size_t regs = fragment_registers(matrix, t);
  if (x.statement().operands.size() != 2 && x.statement().operands.size() != 3)
    x.fail(load ? "operands: {fragment}, [address][, stride]" : "operands: [address], {fragment}[, stride]");
  DecodedInstruction& d = x.d();
  d.type = t;
  d.op = static_cast<uint8_t>(matrix == 'a' ? 0 : matrix == 'b' ? 1 : 2);
  d.mode = static_cast<uint8_t>(layout);
  d.aux = x.statement().operands.size() == 3 ? x.read(x.operand(2), PtxType::u32) : kNoOperand;
  if (d.aux != kNoOperand) d.flags |= DecodedInstruction::kFlagAuxOperand;
  d.first_lane_address = true;  // the tile's address and stride are warp-uniform (exec_tensor.cpp)
  if (load) {
    const auto dst = fragment(x, x.operand(0), regs, true, t);
    std::copy(dst.begin(), dst.end(), d.dst.begin());
    d.n_dst = static_cast<uint8_t>(dst.size());
    x.set_address(x.operand(1), space);
    d.exec = wmma_load_handler_for(space);
    d.narrow = wmma_load_handler_narrow(space);
    x.classify(Unit::ldst, load_energy(space));
  } else {
    x.set_address(x.operand(0), space);
    const auto src = fragment(x, x.operand(1), regs, false, t == PtxType::f32 ? PtxType::f32 : PtxType::b32);
    std::copy(src.begin(), src.end(), d.src.begin());
    d.n_src = static_cast<uint8_t>(src.size());
    d.exec = wmma_store_handler_for(space);
    d.narrow = wmma_store_handler_narrow(space);
    x.classify(Unit::ldst, store_energy(space));
    x.info().is_store = true;
  }
  x.info().space = static_space(space);
}

// wmma.mma.sync.aligned.{row,col}.{row,col}.m16n16k16.dtype.ctype d, a, b, c
// (bf16 inputs: .f32.bf16.bf16.f32)
void wmma_mma(D& x) {
  const Opcode& op = x.opcode();
  int layouts = 0;
  bool shape = false;
  for (size_t i = 1; i < op.mods.size(); ++i) {
    const std::string& m = op.mods[i];
    if (m == "row" || m == "col") ++layouts;
    else if (m == "m16n16k16") shape = true;
    else if (m != "sync" && m != "aligned")
      x.unsupported(m[0] == 'm' ? "shape ." + m + " (loom models m16n16k16)" : "modifier '." + m + "' is not modelled");
  }
  if (layouts != 2 || !shape) x.fail("wmma.mma.sync.aligned.{row,col}.{row,col}.m16n16k16.dtype.ctype");
  PtxType dt, ct, in = PtxType::f16;
  if (op.types.size() == 2) {
    dt = op.types[0];
    ct = op.types[1];
  } else if (op.types.size() == 4 && op.types[1] == op.types[2]) {
    dt = op.types[0];
    in = op.types[1];
    ct = op.types[3];
  } else {
    x.fail("the types .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype");
  }
  const auto accumulator = [](PtxType t) { return t == PtxType::f16 || t == PtxType::f32; };
  if (!accumulator(dt) || !accumulator(ct) || (in != PtxType::f16 && in != PtxType::bf16) ||
      (in == PtxType::bf16 && (dt != PtxType::f32 || ct != PtxType::f32)))
    x.unsupported("only f16 inputs with f16/f32 accumulators and bf16 inputs with f32 accumulators are modelled");
  x.expect_operands(4, "d, a, b, c");
  DecodedInstruction& d = x.d();
  d.exec = wmma_mma_handler(in == PtxType::bf16);
  d.narrow = wmma_mma_handler_narrow(in == PtxType::bf16);
  d.type = dt;
  d.type2 = ct;
  d.op = in == PtxType::bf16 ? 1 : 0;
  d.half_warp_sources = 16;  // a and b: lanes 16-31 repeat lanes 0-15 (exec_tensor.cpp)
  // Every version of the handler reads a, b and c in full before it writes d (warp_mma.h,
  // exec_tensor.cpp), so d may take the slots of operands that die here (register_slots.h).
  d.flags |= DecodedInstruction::kFlagSourcesReadFirst;
  const auto a = fragment(x, x.operand(1), 8, false, PtxType::b32);
  const auto b = fragment(x, x.operand(2), 8, false, PtxType::b32);
  const auto c = fragment(x, x.operand(3), fragment_registers('c', ct), false, PtxType::b32);
  size_t n = 0;
  for (const auto* part : {&a, &b, &c})
    for (uint32_t r : *part) d.src[n++] = r;
  d.n_src = static_cast<uint8_t>(n);
  const auto dst = fragment(x, x.operand(0), fragment_registers('d', dt), true, dt);
  std::copy(dst.begin(), dst.end(), d.dst.begin());
  d.n_dst = static_cast<uint8_t>(dst.size());
  x.classify(Unit::tensor, EnergyClass::tensor_mma);
  StaticInstruction& s = x.info();
  s.tensor = in == PtxType::bf16 ? TensorPrecision::bf16_f32 : (dt == PtxType::f32 ? TensorPrecision::f16_f32 : TensorPrecision::f16_f16);
  s.mma_m = s.mma_n = s.mma_k = 16;
  s.flops_per_warp = 2 * 16 * 16 * 16;
}

void decode_wmma(D& x) {
  const Opcode& op = x.opcode();
  const std::string kind = op.mods.empty() ? "" : op.mods.front();
  if (kind == "load") return wmma_memory(x, true);
  if (kind == "store") return wmma_memory(x, false);
  if (kind == "mma") return wmma_mma(x);
  x.unsupported("expected wmma.load, wmma.store or wmma.mma");
}

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c
void decode_mma(D& x) {
  x.allow_mods({"sync", "aligned", "m16n8k16", "row", "col"});
  const Opcode& op = x.opcode();
  if (!op.has("m16n8k16")) x.unsupported("loom models the mma.sync shape m16n8k16 only");
  if (!op.has("row") || !op.has("col")) x.fail("mma.sync.aligned.m16n8k16.row.col");
  if (op.types.size() != 4 || op.types[0] != PtxType::f32 || op.types[3] != PtxType::f32 || op.types[1] != op.types[2] ||
      (op.types[1] != PtxType::f16 && op.types[1] != PtxType::bf16))
    x.unsupported("only .f32.f16.f16.f32 and .f32.bf16.bf16.f32 are modelled");
  x.expect_operands(4, "d, a, b, c");
  DecodedInstruction& d = x.d();
  d.exec = mma_m16n8k16_handler();
  d.op = op.types[1] == PtxType::bf16 ? 1 : 0;
  const auto a = fragment(x, x.operand(1), 4, false, PtxType::b32);
  const auto b = fragment(x, x.operand(2), 2, false, PtxType::b32);
  const auto c = fragment(x, x.operand(3), 4, false, PtxType::f32);
  size_t n = 0;
  for (const auto* part : {&a, &b, &c})
    for (uint32_t r : *part) d.src[n++] = r;
  d.n_src = static_cast<uint8_t>(n);
  const auto dst = fragment(x, x.operand(0), 4, true, PtxType::f32);
  std::copy(dst.begin(), dst.end(), d.dst.begin());
  d.n_dst = 4;
  x.classify(Unit::tensor, EnergyClass::tensor_mma);
  StaticInstruction& s = x.info();
  s.tensor = d.op ? TensorPrecision::bf16_f32 : TensorPrecision::f16_f32;
  s.mma_m = 16;
  s.mma_n = 8;
  s.mma_k = 16;
  s.flops_per_warp = 2 * 16 * 8 * 16;
}

}  // namespace

const std::map<std::string, OpcodeDecoder, std::less<>>& memory_decoders() {
  static const std::map<std::string, OpcodeDecoder, std::less<>> table{
      {"ld", decode_load}, {"ldu", decode_load}, {"st", decode_store}, {"atom", decode_atom},
      {"red", decode_red}, {"wmma", decode_wmma}, {"mma", decode_mma},
  };
  return table;
}

}  // namespace loom::simt
