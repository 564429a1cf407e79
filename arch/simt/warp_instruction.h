// The contract between the functional PTX model and the SIMT timing model.
//
// loom executes PTX at issue (as GPGPU-Sim and Accel-Sim do): the timing model decides *when*
// a warp issues; the functional model then executes that warp's next instruction for its
// active lanes and reports what the timing model needs to charge for it — which unit, which
// registers (scoreboard, bank conflicts), which bytes of which memory (coalescing, caches),
// and whether the warp hit a barrier or exited. Static facts about an instruction live in
// StaticInstruction (decoded once); per-execution facts in ExecutedInstruction. A source may
// also have executed the instruction earlier and report it at issue (CtaRunAheadSource, for
// kernels whose results cannot depend on when their instructions execute).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace loom::simt {

// Functional-unit class an instruction is dispatched to.
enum class Unit : uint8_t {
  int_alu,  // integer and logic, predicates, moves, conversions between integer types
  fp32,     // FP32 add/mul/fma, FP32 conversions
  fp16,     // half / half2 arithmetic (runs on the FP32 pipes at twice the rate on Volta)
  fp64,     // FP64 arithmetic
  sfu,      // transcendentals, reciprocal, sqrt (special function unit)
  ldst,     // memory instructions: ld/st global/shared/local/param, atomics (MIO queue)
  tensor,   // wmma.mma / mma.sync on the tensor cores
  control,  // bra, ret, exit, bar.sync: handled at issue by the scheduler
  count
};
const char* unit_name(Unit unit);

enum class MemorySpace : uint8_t { none, global, shared, local, param, constant };

// Tensor-core operand precision of an MMA (inputs, accumulator).
enum class TensorPrecision : uint8_t { none, f16_f16, f16_f32, bf16_f32, tf32_f32, s8_s32, s4_s32, b1_s32 };

// Energy classes priced by the per-instruction energy table (see arch/simt/gpu_energy.h).
enum class EnergyClass : uint8_t {
  int_op, fp32_op, fp16_op, fp64_op, sfu_op, load_global, store_global, load_shared, store_shared,
  load_other, tensor_mma, control, count
};

// Everything about an instruction that does not depend on the data: decoded once from PTX.
struct StaticInstruction {
  static constexpr int kMaxSrc = 24, kMaxDst = 8;
  Unit unit = Unit::int_alu;
  EnergyClass energy = EnergyClass::int_op;
  MemorySpace space = MemorySpace::none;  // for ldst
  bool is_store = false;                  // for ldst: writes memory (no destination register)
  bool is_barrier = false;                // bar.sync / barrier.sync
  bool is_branch = false;                 // bra (may diverge)
  bool is_exit = false;                   // ret / exit
  bool is_atomic = false;                 // atom / red: a read-modify-write of memory
  // membar / fence, or an access qualified .volatile, .relaxed, .acquire, .release or
  // .acq_rel: its order with other threads' accesses is part of what the kernel means.
  bool orders_memory = false;
  // For global loads: ld.global.cg ("cache global") is served by L2 without looking up or
  // allocating in L1, so repeated reads never hit L1 (microbenchmarks use it to time L2).
  bool bypass_l1 = false;
  TensorPrecision tensor = TensorPrecision::none;
  uint8_t mma_m = 0, mma_n = 0, mma_k = 0;  // warp-level MMA shape, e.g. 16x16x16
  uint8_t n_src = 0, n_dst = 0;
  // Register ids in the kernel's flat register space (0 .. register_count-1); the timing model
  // uses them for the scoreboard and for register-file bank conflicts (bank = id % banks).
  std::array<uint16_t, kMaxSrc> src{};
  std::array<uint16_t, kMaxDst> dst{};
  uint16_t flops_per_lane = 0;  // floating-point operations per active lane (fma = 2)
  uint32_t flops_per_warp = 0;  // for warp-wide ops (MMA): 2*m*n*k, independent of the mask
  uint32_t line = 0;            // source line in the .ptx file (errors, profiles)
  std::string text;             // the instruction as written (errors, profiles)
};

// One contiguous piece of memory touched by an executed memory instruction. Ordinary loads
// and stores give one segment per active lane; wmma.load/store give one per matrix row (or
// column) they touch. The coalescer maps segments to 32-byte sectors of 128-byte lines.
struct MemorySegment {
  uint64_t address = 0;
  uint32_t bytes = 0;
  uint8_t lane = 0;  // the lane (or, for wmma, the matrix row) this segment belongs to
};

struct ExecutedInstruction {
  static constexpr int kMaxSegments = 64;
  const StaticInstruction* inst = nullptr;
  uint32_t pc = 0;           // instruction index within the kernel
  uint32_t active_mask = 0;  // lanes that executed it (SIMT mask and guard predicate applied)
  uint16_t n_segments = 0;   // memory instructions only
  // A full warp's 4-byte shared ld/st from a 32-bit address register reports its lanes'
  // addresses instead of segments (lane_bytes != 0, n_segments == 0): lane l touched
  // [lane_address[l], lane_address[l] + lane_bytes). Four vector stores where 32 segments
  // take sixteen, for accesses whose segments the bank pass reads only when their span is
  // wide. memory_segments() gives either form as segments.
  uint16_t lane_bytes = 0;
  std::array<MemorySegment, kMaxSegments> segments{};
  std::array<uint32_t, 32> lane_address{};
  // The space the segments are in: inst->space, except that a generic ld/st/atom (whose
  // inst->space is global) reports where its addresses resolved (shared, local or global).
  MemorySpace space = MemorySpace::none;
  // Shared and generic ld/st also report the bytes their segments cover, [span_begin,
  // span_end), so a consumer can settle the common cases from the range alone (every word of
  // a shared access within `banks` consecutive words cannot conflict) before reading 32
  // segments. span_end == 0: not reported (other instructions and spaces, or a source that
  // does not fill it).
  uint64_t span_begin = 0, span_end = 0;
  // The warp after the instruction, as warp_done(), warp_at_barrier() and peek() would
  // answer (next: nullptr once done), so the timing model need not ask again.
  bool warp_done = false;
  bool warp_at_barrier = false;
  const StaticInstruction* next = nullptr;
  // Where the source will read the warp's next instruction from, where that moves (the
  // run-ahead's record cursor): the timing model keeps it as its WarpStateHandle::data, so
  // that a hint need not load the warp's state to find it. nullptr: the handle stays.
  const void* next_state = nullptr;
};

// The segments of `x`, whichever form it reported them in: x.segments, or one per lane of
// its lane form written into `scratch`. Returns how many; `segments` points at them.
int memory_segments(const ExecutedInstruction& x, std::array<MemorySegment, 32>& scratch,
                    const MemorySegment*& segments);

// Resources one CTA of a launch needs: the occupancy limits are checked against these.
struct CtaResources {
  int threads = 0;
  int warps = 0;
  int registers_per_thread = 0;
  int64_t shared_bytes = 0;  // static + dynamic shared memory
};

// Where one warp's functional state lives, as its source describes it: opaque to the timing
// model, which only hands it back with prefetch hints.
struct WarpStateHandle {
  const void* state = nullptr;
  // What else of the warp the source reads: FunctionalModel's registers; the run-ahead's
  // next record, which moves with each instruction (ExecutedInstruction::next_state).
  const void* data = nullptr;
};

// The functional side as the timing model sees it. CTAs live in hardware slots numbered
// 0 .. slot_count-1 across the whole GPU (the timing model picks the slot); warps are
// numbered 0 .. warps-1 within their CTA.
class WarpInstructionSource {
 public:
  virtual ~WarpInstructionSource() = default;
  virtual int64_t cta_count() const = 0;
  virtual CtaResources cta_resources() const = 0;
  // Prepares the source for `slot_count` concurrent CTAs.
  virtual void reserve_slots(int slot_count) = 0;
  virtual void start_cta(int slot, int64_t cta_id) = 0;
  virtual void retire_cta(int slot) = 0;
  virtual bool warp_done(int slot, int warp) const = 0;
  // True while the warp waits at a barrier that not every warp of its CTA has reached.
  virtual bool warp_at_barrier(int slot, int warp) const = 0;
  // The warp's next instruction (valid while !warp_done).
  virtual const StaticInstruction& peek(int slot, int warp) const = 0;
  // Executes the warp's next instruction; fills `out`, including the warp's state after it.
  virtual void execute(int slot, int warp, ExecutedInstruction& out) = 0;

  // Prefetch hints; they change no result. With thousands of warps resident, a warp's state
  // has usually left the host's caches by the time it issues again, and executing then
  // waits on those misses one after another. The timing model asks for a warp's handle once
  // per CTA start (valid until the CTA retires), sets its `data` to each instruction's
  // next_state where the source reports one, and passes it to prefetch() when it expects
  // that warp to issue `next` soon, so the loads overlap with other warps' work.
  virtual WarpStateHandle handle(int /*slot*/, int /*warp*/) const { return {}; }
  virtual void prefetch(const WarpStateHandle& /*warp*/, const StaticInstruction& /*next*/) const {}
};

}  // namespace loom::simt
