// Data movement without arithmetic: mov, selp, slct, packing registers into wider ones and
// back, cvta's address-window shift and the clock registers.
#include "arch/simt/ptx/exec_context.h"
#include "arch/simt/ptx/exec_handlers.h"

namespace loom::simt {

namespace {

// L: the register lanes, uint64_t (wide) or uint32_t (the narrow twin, register_slots.h).
template <class L>
void move(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  L* d = c.dst_as<L>(i.dst[0]);
  const L* a = c.src_as<L>(i.src[0]);
  const auto width = static_cast<L>(i.aux);
  for_each_lane(mask, [&](int l) { d[l] = a[l] & width; });
}

void select_value(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t *a = c.src(i.src[0]), *b = c.src(i.src[1]), *p = c.src(i.src[2]);
  const uint64_t width = i.aux;
  for_each_lane(mask, [&](int l) { d[l] = ((p[l] & 1) ? a[l] : b[l]) & width; });
}

template <class T>
void slct(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t *a = c.src(i.src[0]), *b = c.src(i.src[1]), *s = c.src(i.src[2]);
  const uint64_t width = i.aux;
  for_each_lane(mask, [&](int l) { d[l] = (Repr<T>::load(s[l]) >= T(0) ? a[l] : b[l]) & width; });
}

// mov.b64 d, {a, b}: element k lands at bit k * offset.
void pack(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const int bits = static_cast<int>(i.offset);
  const uint64_t element = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t* s[4] = {};
  for (int k = 0; k < i.n_src; ++k) s[k] = c.src(i.src[k]);
  for_each_lane(mask, [&](int l) {
    uint64_t v = 0;
    for (int k = 0; k < i.n_src; ++k) v |= (s[k][l] & element) << (k * bits);
    d[l] = v;
  });
}

void unpack(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  const uint64_t* a = c.src(i.src[0]);
  const int bits = static_cast<int>(i.offset);
  const uint64_t element = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  uint64_t source[32];  // a destination may be the source register itself
  for_each_lane(mask, [&](int l) { source[l] = a[l]; });
  for (int k = 0; k < i.n_dst; ++k) {
    uint64_t* d = c.dst(i.dst[k]);
    for_each_lane(mask, [&](int l) { d[l] = (source[l] >> (k * bits)) & element; });
  }
}

void clock(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t now = static_cast<uint64_t>(c.warp->executed) & i.aux;
  for_each_lane(mask, [&](int l) { d[l] = now; });
}

void add_offset(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  const uint64_t delta = static_cast<uint64_t>(i.offset), width = i.aux;
  for_each_lane(mask, [&](int l) { d[l] = (a[l] + delta) & width; });
}

}  // namespace

ExecFn move_handler() { return &move<uint64_t>; }
ExecFn move_handler_narrow() { return &move<uint32_t>; }
ExecFn select_value_handler() { return &select_value; }
ExecFn select_slct(PtxType c_type) {
  if (c_type == PtxType::s32) return &slct<int32_t>;
  if (c_type == PtxType::f32) return &slct<float>;
  return nullptr;
}
ExecFn pack_handler() { return &pack; }
ExecFn unpack_handler() { return &unpack; }
ExecFn clock_handler() { return &clock; }
ExecFn add_offset_handler() { return &add_offset; }

}  // namespace loom::simt
