#include "arch/simt/ptx/functional_model.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

#include "arch/simt/ptx/exec_context.h"
#include "sim/error.h"

namespace loom::simt {

namespace {
constexpr uint64_t kMaxSharedBytes = uint64_t{1} << 30;  // far above any GPU; the timing model checks the real limit
}

FunctionalModel::FunctionalModel(const PtxKernel& kernel, const LaunchConfig& config, std::vector<uint8_t> params,
                                 GlobalMemory& memory) {
  const std::string& file = kernel.source_name;
  const Dim3 &g = config.grid, &b = config.block;
  if (b.x == 0 || b.y == 0 || b.z == 0 || b.count() > 1024 || b.z > 64)
    throw InputError(file, "block", "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) +
                                        ") of kernel '" + kernel.name + "'; expected 1 to 1024 threads, every dimension at least 1, z at most 64");
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
    throw InputError(file, "grid", "grid (" + std::to_string(g.x) + "," + std::to_string(g.y) + "," + std::to_string(g.z) +
                                       ") of kernel '" + kernel.name + "'; expected x in 1..2^31-1 and y, z in 1..65535");
  if (params.size() != kernel.param_bytes)
    throw InputError(file, "arguments", "kernel '" + kernel.name + "' needs " + std::to_string(kernel.param_bytes) +
                                            " bytes of parameters, " + std::to_string(params.size()) +
                                            " given; expected the result of bind_kernel_arguments");
  if (config.dynamic_shared_bytes < 0 || static_cast<uint64_t>(config.dynamic_shared_bytes) > kMaxSharedBytes)
    throw InputError(file, "dynamic shared memory", "expected 0 to 1 GiB, found " + std::to_string(config.dynamic_shared_bytes));
  if (config.registers_per_thread < 0 || config.registers_per_thread > 255)
    throw InputError(file, "registers per thread", "expected 1 to 255 (or 0 for the estimate), found " +
                                                       std::to_string(config.registers_per_thread));
  launch_.kernel = &kernel;
  launch_.memory = &memory;
  launch_.grid = g;
  launch_.block = b;
  launch_.threads_per_cta = static_cast<uint32_t>(b.count());
  launch_.warps_per_cta = (launch_.threads_per_cta + 31) / 32;
  launch_.shared_bytes = config.dynamic_shared_bytes > 0
                             ? kernel.dynamic_shared_offset() + static_cast<uint64_t>(config.dynamic_shared_bytes)
                             : kernel.static_shared_bytes;
  launch_.params = std::move(params);
  registers_per_thread_ = config.registers_per_thread ? config.registers_per_thread : kernel.estimated_registers;
}

CtaResources FunctionalModel::cta_resources() const {
  CtaResources r;
  r.threads = static_cast<int>(launch_.threads_per_cta);
  r.warps = static_cast<int>(launch_.warps_per_cta);
  r.registers_per_thread = registers_per_thread_;
  r.shared_bytes = static_cast<int64_t>(launch_.shared_bytes);
  return r;
}

void FunctionalModel::reserve_slots(int slot_count) {
  LOOM_CHECK(slot_count > 0, "functional model", "reserve_slots needs at least one slot");
  for (const CtaState& c : slots_) LOOM_CHECK(!c.active, "functional model", "reserve_slots while CTAs are resident");
  slots_.assign(static_cast<size_t>(slot_count), CtaState{});
  // Every slot's registers in one buffer, on huge pages where the host gives them.
  registers_per_cta_ = size_t{launch_.kernel->storage_units()} * 16 * launch_.warps_per_cta;
  registers_ = HugePageBuffer(registers_per_cta_ * sizeof(uint64_t) * static_cast<size_t>(slot_count));
}

void FunctionalModel::start_cta(int slot, int64_t cta_id) {
  LOOM_CHECK(slot >= 0 && static_cast<size_t>(slot) < slots_.size(), "functional model", "start_cta: no such slot");
  LOOM_CHECK(cta_id >= 0 && cta_id < cta_count(), "functional model", "start_cta: no such CTA");
  CtaState& c = slots_[static_cast<size_t>(slot)];
  LOOM_CHECK(!c.active, "functional model", "start_cta: slot already holds a CTA");
  const PtxKernel& k = *launch_.kernel;
  const Dim3& g = launch_.grid;
  const auto id = static_cast<uint64_t>(cta_id);
  c.active = true;
  c.slot = slot;
  c.cta_id = cta_id;
  c.ctaid = {static_cast<uint32_t>(id % g.x), static_cast<uint32_t>(id / g.x % g.y), static_cast<uint32_t>(id / (uint64_t{g.x} * g.y))};
  const uint32_t warps = launch_.warps_per_cta;
  const size_t per_warp = size_t{k.storage_units()} * 16;
  // Registers and memory start zeroed so results never depend on a slot's previous CTA.
  uint64_t* registers = static_cast<uint64_t*>(registers_.data()) + registers_per_cta_ * static_cast<size_t>(slot);
  // (memset: narrow units are read as uint32_t, wide ones as uint64_t.)
  std::memset(registers, 0, registers_per_cta_ * sizeof(uint64_t));
  c.shared.assign(launch_.shared_bytes, 0);
  c.local.assign(size_t{k.local_bytes} * 32 * warps, 0);
  c.warps.resize(warps);
  c.live_warps = static_cast<int>(warps);
  c.arrived.fill(0);
  c.expected.fill(0);
  for (uint32_t w = 0; w < warps; ++w) {
    WarpState& ws = c.warps[w];
    ws.regs = registers + per_warp * w;
    ws.local = c.local.data() + size_t{k.local_bytes} * 32 * w;
    const uint32_t lanes = std::min<uint32_t>(32, launch_.threads_per_cta - 32 * w);
    const uint32_t mask = lanes == 32 ? kFullMask : (1u << lanes) - 1;
    ws.stack.reset({0, kNoReconvergence, mask});
    ws.live = mask;
    ws.at_barrier = false;
    ws.executed = 0;
    fill_special_registers(c, w);
  }
}

void FunctionalModel::fill_special_registers(CtaState& c, uint32_t warp) {
  const PtxKernel& k = *launch_.kernel;
  const Dim3 &b = launch_.block, &g = launch_.grid;
  uint64_t* regs = c.warps[warp].regs;
  for (size_t i = 0; i < k.specials.size(); ++i) {
    uint64_t* r = regs + (k.special_slot + 3 * i) * 16;  // the wide copy, then the narrow one
    auto* narrow = reinterpret_cast<uint32_t*>(r + 32);
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t t = warp * 32 + lane;
      uint64_t v = 0;
      switch (k.specials[i]) {
        case SpecialRegister::tid_x: v = t % b.x; break;
        case SpecialRegister::tid_y: v = t / b.x % b.y; break;
        case SpecialRegister::tid_z: v = t / (b.x * b.y); break;
        case SpecialRegister::ntid_x: v = b.x; break;
        case SpecialRegister::ntid_y: v = b.y; break;
        case SpecialRegister::ntid_z: v = b.z; break;
        case SpecialRegister::ctaid_x: v = c.ctaid.x; break;
        case SpecialRegister::ctaid_y: v = c.ctaid.y; break;
        case SpecialRegister::ctaid_z: v = c.ctaid.z; break;
        case SpecialRegister::nctaid_x: v = g.x; break;
        case SpecialRegister::nctaid_y: v = g.y; break;
        case SpecialRegister::nctaid_z: v = g.z; break;
        case SpecialRegister::laneid: v = lane; break;
        case SpecialRegister::warpid: v = warp; break;
        case SpecialRegister::nwarpid: v = launch_.warps_per_cta; break;
        case SpecialRegister::smid: v = 0; break;  // the functional model has no SM placement
        case SpecialRegister::nsmid: v = 1; break;
        case SpecialRegister::gridid: v = 0; break;
        case SpecialRegister::lanemask_eq: v = 1u << lane; break;
        case SpecialRegister::lanemask_le: v = static_cast<uint32_t>((uint64_t{2} << lane) - 1); break;
        case SpecialRegister::lanemask_lt: v = (1u << lane) - 1; break;
        case SpecialRegister::lanemask_ge: v = ~((1u << lane) - 1); break;
        case SpecialRegister::lanemask_gt: v = ~static_cast<uint32_t>((uint64_t{2} << lane) - 1); break;
        default: break;
      }
      r[lane] = v;
      narrow[lane] = static_cast<uint32_t>(v);
    }
  }
}

void FunctionalModel::retire_cta(int slot) {
  CtaState& c = slots_[static_cast<size_t>(slot)];
  LOOM_CHECK(c.active, "functional model", "retire_cta: slot is empty");
  for (const WarpState& w : c.warps) LOOM_CHECK(w.stack.empty(), "functional model", "retire_cta: a warp is still running");
  c.active = false;
}

const StaticInstruction& FunctionalModel::peek(int slot, int warp) const {
  const WarpState& w = slots_[static_cast<size_t>(slot)].warps[static_cast<size_t>(warp)];
  LOOM_CHECK(!w.stack.empty(), "functional model", "peek at a finished warp");
  return launch_.kernel->statics[w.stack.back().pc];
}

void FunctionalModel::execute(int slot, int warp, ExecutedInstruction& out) {
  CtaState& cta = slots_[static_cast<size_t>(slot)];
  WarpState& w = cta.warps[static_cast<size_t>(warp)];
  step(cta, w, warp, out);
  out.warp_done = w.stack.empty();
  out.warp_at_barrier = w.at_barrier;
  out.next = out.warp_done ? nullptr : &launch_.kernel->statics[w.stack.back().pc];
}

WarpStateHandle FunctionalModel::handle(int slot, int warp) const {
  const WarpState& w = slots_[static_cast<size_t>(slot)].warps[static_cast<size_t>(warp)];
  return {&w, w.regs};
}

// The warp's state and every register line `next` reads or writes: the guard, the address,
// the sources and (for writing) the destinations. Constants are shared and stay cached.
void FunctionalModel::prefetch(const WarpStateHandle& warp, const StaticInstruction& next) const {
  const PtxKernel& k = *launch_.kernel;
  const DecodedInstruction& d = k.code[static_cast<size_t>(&next - k.statics.data())];
  const auto* regs = static_cast<const uint64_t*>(warp.data);
  __builtin_prefetch(warp.state);
  __builtin_prefetch(static_cast<const char*>(warp.state) + 64);
  auto lines = [regs, &k](uint32_t operand, auto write, int halves = 2) {
    if (operand & kConstantFlag) return;  // a constant, or kNoOperand
    const uint64_t* r = regs + size_t{operand} * 16;
    const int count = k.is_narrow(operand) ? halves : 2 * halves;  // 64 bytes per 16 narrow lanes
    for (int line = 0; line < count; ++line) __builtin_prefetch(r + 8 * line, decltype(write)::value);
  };
  lines(d.guard, std::false_type{});
  lines(d.address, std::false_type{});
  for (int i = 0; i < d.n_src; ++i) lines(d.src[static_cast<size_t>(i)], std::false_type{}, i < d.half_warp_sources ? 1 : 2);
  for (int i = 0; i < d.n_dst; ++i) lines(d.dst[static_cast<size_t>(i)], std::true_type{});
}

// Inlined into execute(), its one caller, once per warp instruction.
[[gnu::always_inline]] inline void FunctionalModel::step(CtaState& cta, WarpState& w, int warp,
                                                         ExecutedInstruction& out) {
  LOOM_CHECK(!w.stack.empty() && !w.at_barrier, "functional model", "execute on a finished or waiting warp");
  const PtxKernel& k = *launch_.kernel;
  SimtStackEntry& top = w.stack.back();
  const uint32_t pc = top.pc;
  const DecodedInstruction& d = k.code[pc];
  uint32_t mask = top.mask;
  if (d.guard != kNoOperand) {
    const uint64_t* pred = w.regs + size_t{d.guard} * 16;
    mask &= d.guard_narrow ? predicate_mask(reinterpret_cast<const uint32_t*>(pred), d.guard_negated)
                           : predicate_mask(pred, d.guard_negated);
  }
  const StaticInstruction& info = k.statics[pc];
  out.inst = &info;
  out.pc = pc;
  out.active_mask = mask;
  out.n_segments = 0;
  out.lane_bytes = 0;
  out.span_end = 0;
  out.space = info.space;
  ++w.executed;
  switch (d.control) {
    case Control::none:
      if (mask) {
        WarpContext context;
        context.regs = w.regs;
        context.constants = k.constants.data();
        context.constants32 = k.constants32.data();
        context.launch = &launch_;
        context.cta = &cta;
        context.warp = &w;
        context.warp_index = static_cast<uint32_t>(warp);
        context.out = &out;
        // A result read only at the first active lane is computed for that lane alone
        // (first_lane_results.h); out.active_mask keeps every active lane for the counts.
        d.exec(context, d, d.flags & DecodedInstruction::kFlagFirstLaneOnly ? mask & (0u - mask) : mask);
      }
      move_top(w, top, pc + 1);  // the entry already at hand: no handler touches the stack
      return;
    case Control::branch:
      branch(w, d, pc, mask);
      return;
    case Control::exit:
      exit_lanes(cta, w, pc, mask);
      return;
    case Control::barrier:
      advance(w, pc + 1);
      if (mask) arrive(cta, w, d, pc, mask);
      return;
  }
}

// Pops entries whose lanes reached their reconvergence point or have all exited.
void FunctionalModel::settle(WarpState& w) {
  while (!w.stack.empty()) {
    const SimtStackEntry& top = w.stack.back();
    if (top.mask != 0 && top.pc != top.reconverge) return;
    w.stack.pop_back();
  }
}

void FunctionalModel::branch(WarpState& w, const DecodedInstruction& d, uint32_t pc, uint32_t taken) {
  SimtStackEntry& top = w.stack.back();
  const uint32_t not_taken = top.mask & ~taken;
  if (not_taken == 0) return advance(w, d.target);
  if (taken == 0) return advance(w, pc + 1);
  const uint32_t rpc = d.reconverge;
  if (rpc == top.reconverge) {
    // The current entry would only wait at rpc to be popped there: reuse it for one path,
    // which keeps the stack flat across divergent loop iterations.
    top.pc = pc + 1;
    top.mask = not_taken;
  } else {
    top.pc = rpc;
    w.stack.push_back({pc + 1, rpc, not_taken});
  }
  w.stack.push_back({d.target, rpc, taken});
  settle(w);
}

void FunctionalModel::exit_lanes(CtaState& cta, WarpState& w, uint32_t pc, uint32_t lanes) {
  if (lanes == 0) return advance(w, pc + 1);
  for (SimtStackEntry& e : w.stack) e.mask &= ~lanes;
  w.live &= ~lanes;
  if (w.stack.back().mask != 0) w.stack.back().pc = pc + 1;
  settle(w);
  if (!w.stack.empty()) return;
  --cta.live_warps;
  for (int b = 0; b < CtaState::kBarriers; ++b) release_if_complete(cta, b);
}

void FunctionalModel::arrive(CtaState& cta, WarpState& w, const DecodedInstruction& d, uint32_t pc, uint32_t) {
  if (w.stack.empty()) return;  // the barrier was the warp's last instruction before a reconvergence at exit
  const int b = d.op;
  w.at_barrier = true;
  w.barrier = static_cast<uint8_t>(b);
  w.barrier_pc = pc;
  ++cta.arrived[b];
  cta.expected[b] = static_cast<uint16_t>(d.offset / 32);
  release_if_complete(cta, b);
}

void FunctionalModel::release_if_complete(CtaState& cta, int b) {
  if (cta.arrived[b] == 0) return;
  const int needed = cta.expected[b] ? cta.expected[b] : cta.live_warps;
  if (cta.arrived[b] < needed) return;
  for (WarpState& w : cta.warps)
    if (w.at_barrier && w.barrier == b) w.at_barrier = false;
  cta.arrived[b] = 0;
  cta.expected[b] = 0;
}

std::string FunctionalModel::describe_waiting_warps(int slot) const {
  const CtaState& c = slots_[static_cast<size_t>(slot)];
  const PtxKernel& k = *launch_.kernel;
  std::string s;
  for (size_t w = 0; w < c.warps.size(); ++w) {
    const WarpState& ws = c.warps[w];
    if (ws.stack.empty()) continue;
    if (!s.empty()) s += "; ";
    s += "warp " + std::to_string(w);
    if (ws.at_barrier) {
      const StaticInstruction& at = k.statics[ws.barrier_pc];
      s += " waits at barrier " + std::to_string(ws.barrier) + " ('" + at.text + "', line " + std::to_string(at.line) + ")";
    } else {
      const StaticInstruction& at = k.statics[ws.stack.back().pc];
      s += " is at '" + at.text + "' (line " + std::to_string(at.line) + ")";
    }
  }
  return s;
}

}  // namespace loom::simt
