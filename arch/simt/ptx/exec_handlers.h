// The instruction handlers, chosen once per instruction by the decoder. Each select_*
// returns the handler for an operation and type, or nullptr when PTX does not define that
// combination (the decoder then reports the instruction as unsupported).
#pragma once

#include <cstdint>

#include "arch/simt/ptx/half_float.h"
#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

enum class IntOp : uint8_t {
  add, sub, mul_lo, mul_hi, mul_wide, mul24_lo, mul24_hi, min, max, div, rem,
  and_, or_, xor_, shl, shr, add_sat, sub_sat,
  neg, abs, not_, cnot, popc, clz, brev, bfind,
  mad_lo, mad_hi, mad_wide, mad24_lo, sad, bfe, prmt, lop3,
  shf_l_wrap, shf_l_clamp, shf_r_wrap, shf_r_clamp, bfi,
};
// Operand order: d, a, b, c (bfi: d, a, b, pos, len; lop3: the LUT in aux).
ExecFn select_integer_op(IntOp op, PtxType type);
ExecFn select_integer_op_narrow(IntOp op, PtxType type);  // the narrow twin (see below)

enum class FloatOp : uint8_t {
  add, sub, mul, div, min, max, min_nan, max_nan, copysign, fma,
  neg, abs, sqrt, rcp, rsqrt, sin, cos, ex2, lg2, tanh,
};
// f32/f64 and the half types (f16, bf16 and their x2 pairs); .sat clamps to [0, 1].
ExecFn select_float_op(FloatOp op, PtxType type, bool saturate);
// Narrow twins (DecodedInstruction::narrow): the same handler on 32-bit register lanes, for
// every value operand (src and dst; not the guard or the address); nullptr where the values
// need 64 bits.
ExecFn select_float_op_narrow(FloatOp op, PtxType type, bool saturate);
// .rz/.rm/.rp rounding for f32 and f64 add, sub, mul, div, rcp, sqrt and f32 fma.
ExecFn select_float_directed(FloatOp op, PtxType type, RoundingMode mode, bool saturate);

enum class CompareOp : uint8_t { eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan };
enum class BoolOp : uint8_t { none, and_, or_, xor_ };
// setp: d[0] = cmp(a, b) BOOLOP c; with kFlagSecondDst also d[1] = !cmp(a, b) BOOLOP c.
// The boolean op is DecodedInstruction::op; kFlagNegateC negates c.
ExecFn select_setp(CompareOp cmp, PtxType type);
ExecFn select_setp_narrow(CompareOp cmp, PtxType type);
enum class TestOp : uint8_t { finite, infinite, number, notanumber, normal, subnormal };
ExecFn select_testp(TestOp test, PtxType type);

// cvt: DecodedInstruction::mode holds a CvtRounding; aux the destination register's mask.
// register_wider: the destination register is wider than `dst` (signed results sign-extend).
enum class CvtRounding : uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi };
ExecFn select_convert(PtxType dst, PtxType src, CvtRounding rounding, bool saturate, bool register_wider);
// cvt.rn.{f16x2,bf16x2}.f32 d, a, b (round to nearest even).
ExecFn select_convert_pair(PtxType dst);

// Moves: aux is the result's width mask.
ExecFn move_handler();           // d = a
ExecFn move_handler_narrow();
ExecFn select_value_handler();   // selp: d = c ? a : b
ExecFn select_slct(PtxType c_type);  // slct: d = c >= 0 ? a : b
ExecFn pack_handler();           // mov d, {a, b, ...}: offset = element bits
ExecFn unpack_handler();         // mov {d0, d1, ...}, a
ExecFn clock_handler();          // %clock/%clock64: the warp's instruction count
ExecFn add_offset_handler();     // cvta: d = a + offset

// Memory: space none = generic. Loads and stores move `vec` (1, 2, 4) elements of `bytes` each per lane.
// Each with its narrow twins (register_slots.h): values narrow (nullptr above 4 bytes), the
// address register narrow, both.
struct MemoryHandlers {
  ExecFn wide, narrow_values, narrow_address, narrow_both;
};
MemoryHandlers select_load(MemorySpace space, int bytes, int vec);
MemoryHandlers select_store(MemorySpace space, int bytes, int vec);
enum class AtomicOp : uint8_t { add, min, max, exch, cas, and_, or_, xor_, inc, dec };
ExecFn select_atomic(MemorySpace space, bool returns_value);  // op in DecodedInstruction::op

// Warp-wide.
enum class ShuffleMode : uint8_t { up, down, bfly, idx };
ExecFn shuffle_handler();  // op = ShuffleMode; src: a, b, c, membermask; dst: d [, p]
enum class VoteMode : uint8_t { all, any, uni, ballot };
ExecFn vote_handler();        // op = VoteMode; flags kFlagNegateC negates the predicate
ExecFn activemask_handler();

// Tensor cores (fragment layout in exec_tensor.cpp).
// wmma.load: op 0 = a, 1 = b, 2 = c; mode 0 = row, 1 = col; type: element type; aux: the
// stride operand (kNoOperand: the default 16). wmma.store: src = the fragment registers.
ExecFn wmma_load_handler_for(MemorySpace space);
ExecFn wmma_store_handler_for(MemorySpace space);
ExecFn wmma_mma_handler(bool bf16);  // type: d type, type2: c type; bf16: bf16 inputs (else f16)
// Their narrow twins: the fragments in 32-bit lanes (the address stays wide).
ExecFn wmma_load_handler_narrow(MemorySpace space);
ExecFn wmma_store_handler_narrow(MemorySpace space);
ExecFn wmma_mma_handler_narrow(bool bf16);
ExecFn mma_m16n8k16_handler();

}  // namespace loom::simt
