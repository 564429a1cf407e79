// atom and red. Lanes apply their operations one after another in lane order, which is one
// of the orders the hardware may choose; the result is deterministic.
#include <algorithm>
#include <cmath>

#include "arch/simt/ptx/exec_handlers.h"
#include "arch/simt/ptx/memory_access.h"

namespace loom::simt {

namespace {

template <class T>
T apply_int(AtomicOp op, T old, T b, T c) {
  switch (op) {
    case AtomicOp::add: return static_cast<T>(old + b);
    case AtomicOp::min: return std::min(old, b);
    case AtomicOp::max: return std::max(old, b);
    case AtomicOp::exch: return b;
    case AtomicOp::cas: return old == b ? c : old;
    case AtomicOp::and_: return old & b;
    case AtomicOp::or_: return old | b;
    case AtomicOp::xor_: return old ^ b;
    case AtomicOp::inc: return old >= b ? T(0) : static_cast<T>(old + 1);
    case AtomicOp::dec: return old == 0 || old > b ? b : static_cast<T>(old - 1);
  }
  return old;
}

template <class F>
F apply_float(AtomicOp op, F old, F b) {
  switch (op) {
    case AtomicOp::add: return old + b;
    case AtomicOp::min: return std::isnan(b) ? old : (std::isnan(old) ? b : std::min(old, b));
    case AtomicOp::max: return std::isnan(b) ? old : (std::isnan(old) ? b : std::max(old, b));
    case AtomicOp::exch: return b;
    default: return old;
  }
}

// The new memory value for old value `old` (all values as zero-extended register bits).
uint64_t apply(AtomicOp op, PtxType type, uint64_t old, uint64_t b, uint64_t c) {
  switch (type) {
    case PtxType::s32: return Repr<int32_t>::store(apply_int<int32_t>(op, int32_t(old), int32_t(b), int32_t(c)));
    case PtxType::s64: return Repr<int64_t>::store(apply_int<int64_t>(op, int64_t(old), int64_t(b), int64_t(c)));
    case PtxType::u64: case PtxType::b64: return apply_int<uint64_t>(op, old, b, c);
    case PtxType::f32: return Repr<float>::store(apply_float(op, Repr<float>::load(old), Repr<float>::load(b)));
    case PtxType::f64: return Repr<double>::store(apply_float(op, Repr<double>::load(old), Repr<double>::load(b)));
    case PtxType::f16: return Repr<F16>::store(apply_float(op, Repr<F16>::load(old), Repr<F16>::load(b)));
    case PtxType::bf16: return Repr<BF16>::store(apply_float(op, Repr<BF16>::load(old), Repr<BF16>::load(b)));
    case PtxType::f16x2: {
      uint64_t r = 0;
      for (int h = 0; h < 2; ++h)
        r |= Repr<F16>::store(apply_float(op, Repr<F16>::load(old >> 16 * h & 0xffff), Repr<F16>::load(b >> 16 * h & 0xffff))) << 16 * h;
      return r;
    }
    default: return apply_int<uint32_t>(op, uint32_t(old), uint32_t(b), uint32_t(c));  // u32, b32
  }
}

template <MemorySpace S, bool Returns>
void atomic(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  const uint64_t* base = i.address != kNoOperand ? c.src(i.address) : nullptr;
  const uint64_t* b = c.src(i.src[0]);
  const uint64_t* cc = i.n_src >= 2 ? c.src(i.src[1]) : nullptr;
  uint64_t* d = Returns ? c.dst(i.dst[0]) : nullptr;
  const auto op = static_cast<AtomicOp>(i.op);
  const uint32_t bytes = static_cast<uint32_t>(type_bytes(i.type));
  MemorySpace space = S;
  // Operands are read before any lane writes its result: d may alias b or c.
  uint64_t bv[32], cv[32];
  for_each_lane(mask, [&](int l) {
    bv[l] = b[l];
    cv[l] = cc ? cc[l] : 0;
  });
  for_each_lane(mask, [&](int l) {
    const uint64_t address = (base ? base[l] : 0) + static_cast<uint64_t>(i.offset);
    uint64_t where;
    uint8_t* p = resolve<S>(c, address, bytes, l, where, space);
    c.add_segment(where, bytes, l);
    uint64_t old = 0;
    std::memcpy(&old, p, bytes);
    const uint64_t updated = apply(op, i.type, old, bv[l], cv[l]);
    std::memcpy(p, &updated, bytes);
    if constexpr (Returns) d[l] = old;
  });
  c.out->space = space;
}

template <bool Returns>
ExecFn for_space(MemorySpace space) {
  switch (space) {
    case MemorySpace::global: return &atomic<MemorySpace::global, Returns>;
    case MemorySpace::shared: return &atomic<MemorySpace::shared, Returns>;
    case MemorySpace::none: return &atomic<MemorySpace::none, Returns>;
    default: return nullptr;
  }
}

}  // namespace

ExecFn select_atomic(MemorySpace space, bool returns_value) {
  return returns_value ? for_space<true>(space) : for_space<false>(space);
}

}  // namespace loom::simt
