// Decoders for control flow, barriers, fences and warp-wide votes and shuffles.
#include "arch/simt/ptx/decode_context.h"
#include "arch/simt/ptx/functional_state.h"

namespace loom::simt {

namespace {

using D = DecodeContext;

void nothing(WarpContext&, const DecodedInstruction&, uint32_t) {}

void decode_bra(D& x) {
  x.allow_mods({"uni"});
  x.expect_operands(1, "target label");
  const PtxOperand& target = x.operand(0);
  if (target.kind != PtxOperand::Kind::symbol) x.fail("a label as the branch target (indirect branches are not modelled)");
  DecodedInstruction& d = x.d();
  d.control = Control::branch;
  d.target = x.pc_of_label(target.symbol);
  x.classify(Unit::control, EnergyClass::control);
  x.info().is_branch = true;
}

void decode_exit(D& x) {
  x.allow_mods({"uni"});
  x.expect_operands(0, "none");
  x.d().control = Control::exit;
  x.classify(Unit::control, EnergyClass::control);
  x.info().is_exit = true;
}

uint64_t immediate(D& x, const PtxOperand& op, const char* what) {
  if (op.kind != PtxOperand::Kind::integer) x.unsupported(std::string("a register ") + what + " (loom needs an immediate)");
  return op.bits;
}

// bar.sync / barrier.sync a[, b]: barrier a (0-15); b threads (a multiple of 32), default all.
void decode_bar(D& x) {
  const Opcode& op = x.opcode();
  if (op.has("warp")) {  // bar.warp.sync: the warp is already converged in this model
    x.allow_mods({"warp", "sync"});
    x.d().exec = &nothing;
    x.classify(Unit::control, EnergyClass::control);
    return;
  }
  x.allow_mods({"sync", "aligned", "cta", "all"});
  if (!op.has("sync")) x.unsupported("only bar.sync/barrier.sync are modelled (not bar.arrive or bar.red)");
  if (x.statement().operands.empty() || x.statement().operands.size() > 2) x.fail("a barrier number and optionally a thread count");
  const uint64_t id = immediate(x, x.operand(0), "barrier number");
  if (id >= static_cast<uint64_t>(CtaState::kBarriers)) x.fail("a barrier number from 0 to 15");
  DecodedInstruction& d = x.d();
  d.control = Control::barrier;
  d.op = static_cast<uint8_t>(id);
  if (x.statement().operands.size() == 2) {
    const uint64_t threads = immediate(x, x.operand(1), "thread count");
    if (threads == 0 || threads % 32 != 0 || threads > 1024) x.fail("a thread count that is a multiple of 32, at most 1024");
    d.offset = static_cast<int64_t>(threads);
  }
  x.classify(Unit::control, EnergyClass::control);
  x.info().is_barrier = true;
}

// Fences order memory between threads; a functional model executing one instruction at a
// time is already sequentially consistent.
void decode_fence(D& x) {
  x.d().exec = &nothing;  // executed in program order, the functional model's only order
  x.info().orders_memory = true;
  x.classify(Unit::control, EnergyClass::control);
}

// shfl.sync.mode.b32 d[|p], a, b, c, membermask (and the pre-Volta form without .sync)
void decode_shfl(D& x) {
  const Opcode& op = x.opcode();
  x.allow_mods({"sync", "up", "down", "bfly", "idx"});
  ShuffleMode mode;
  if (op.has("up")) mode = ShuffleMode::up;
  else if (op.has("down")) mode = ShuffleMode::down;
  else if (op.has("bfly")) mode = ShuffleMode::bfly;
  else if (op.has("idx")) mode = ShuffleMode::idx;
  else x.fail("a shuffle mode (.up, .down, .bfly, .idx)");
  if (x.one_type() != PtxType::b32) x.fail("shfl of type .b32");
  const bool sync = op.has("sync");
  x.expect_operands(sync ? 5 : 4, sync ? "d[|p], a, b, c, membermask" : "d[|p], a, b, c");
  DecodedInstruction& d = x.d();
  d.exec = shuffle_handler();
  d.op = static_cast<uint8_t>(mode);
  x.write_destination_pair(x.operand(0));
  for (int k = 0; k < 3; ++k) d.src[k] = x.read(x.operand(static_cast<size_t>(k) + 1), PtxType::b32);
  d.n_src = 3;
  if (sync) d.src[d.n_src++] = x.read(x.operand(4), PtxType::b32);  // membermask: read for the scoreboard only
  // SHFL travels through the shared-memory crossbar (the MIO pipe) on Volta and later.
  x.classify(Unit::ldst, EnergyClass::load_shared);
}

// vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask
void decode_vote(D& x) {
  const Opcode& op = x.opcode();
  x.allow_mods({"sync", "all", "any", "uni", "ballot"});
  VoteMode mode;
  if (op.has("all")) mode = VoteMode::all;
  else if (op.has("any")) mode = VoteMode::any;
  else if (op.has("uni")) mode = VoteMode::uni;
  else if (op.has("ballot")) mode = VoteMode::ballot;
  else x.fail("a vote mode (.all, .any, .uni, .ballot)");
  if (x.one_type() != (mode == VoteMode::ballot ? PtxType::b32 : PtxType::pred))
    x.fail(mode == VoteMode::ballot ? "vote.ballot.b32" : "a .pred result");
  const bool sync = op.has("sync");
  x.expect_operands(sync ? 3 : 2, sync ? "d, {!}a, membermask" : "d, {!}a");
  DecodedInstruction& d = x.d();
  d.exec = vote_handler();
  d.op = static_cast<uint8_t>(mode);
  d.dst[0] = x.write(x.operand(0));
  d.n_dst = 1;
  bool negated = false;
  d.src[0] = x.read_predicate(x.operand(1), negated);
  if (negated) d.flags |= DecodedInstruction::kFlagNegateC;
  d.n_src = 1;
  if (sync) d.src[d.n_src++] = x.read(x.operand(2), PtxType::b32);
  x.classify(Unit::int_alu, EnergyClass::int_op);
}

void decode_activemask(D& x) {
  x.allow_mods({});
  if (x.one_type() != PtxType::b32) x.fail("activemask.b32");
  x.expect_operands(1, "d");
  DecodedInstruction& d = x.d();
  d.exec = activemask_handler();
  d.dst[0] = x.write(x.operand(0));
  d.n_dst = 1;
  x.classify(Unit::int_alu, EnergyClass::int_op);
}

}  // namespace

const std::map<std::string, OpcodeDecoder, std::less<>>& control_decoders() {
  static const std::map<std::string, OpcodeDecoder, std::less<>> table{
      {"bra", decode_bra},         {"ret", decode_exit},   {"exit", decode_exit},  {"bar", decode_bar},
      {"barrier", decode_bar},     {"membar", decode_fence}, {"fence", decode_fence}, {"shfl", decode_shfl},
      {"vote", decode_vote},       {"activemask", decode_activemask},
  };
  return table;
}

}  // namespace loom::simt
