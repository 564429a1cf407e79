// wmma.load of a and b fragments in every memory layout (.row and .col for each), with a
// leading dimension wider than the tile, from global and from shared memory: one MMA from a
// zero accumulator must give, bit for bit, each D element as the fp32 sum of its exact
// products in k order. The shipped WMMA GEMM only loads a by rows and b by columns.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "arch/simt/ptx/half_float.h"
#include "arch/simt/ptx/kernel_arguments.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "arch/simt/ptx/run_functional.h"

using namespace loom;
using namespace loom::simt;

namespace {

constexpr int kLd = 24;  // leading dimension of both inputs, in elements

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The accumulator comes from D, zero before the launch. SPACE global: the fragments come
// straight from the kernel's arguments. SPACE shared: the
// first lane copies both inputs into shared memory first.
std::string layouts_kernel(const std::string& a_layout, const std::string& b_layout, const std::string& space) {
  std::string text = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry layouts(.param .u64 pa, .param .u64 pb, .param .u64 pd) {
  .reg .pred %p<2>;
  .reg .b16 %h<2>;
  .reg .b32 %r<24>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b8 stage[1536];
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pd];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mov.u32 %r17, 24;
  mov.u32 %r18, 16;
STAGE
  wmma.load.a.sync.aligned.ALAYOUT.m16n16k16.SPACE.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd7], %r17;
  wmma.load.b.sync.aligned.BLAYOUT.m16n16k16.SPACE.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd8], %r17;
  wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd6], %r18;
  wmma.mma.sync.aligned.ALAYOUT.BLAYOUT.m16n16k16.f32.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd6], {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, %r18;
  ret;
}
)";
  const std::string global_stage = "  mov.u64 %rd7, %rd4;\n  mov.u64 %rd8, %rd5;\n";
  // Lane 0 copies 768 bytes of each input, 2 bytes at a time (A to stage, B to stage + 768).
  const std::string shared_stage = R"(
  mov.u32 %r19, %tid.x;
  setp.ne.u32 %p1, %r19, 0;
  @%p1 bra DONE;
  mov.u32 %r20, 0;
COPY:
  cvt.u64.u32 %rd9, %r20;
  add.s64 %rd10, %rd4, %rd9;
  mov.u32 %r21, stage;
  add.u32 %r22, %r21, %r20;
  ld.global.b16 %h1, [%rd10];
  st.shared.b16 [%r22], %h1;
  add.s64 %rd10, %rd5, %rd9;
  ld.global.b16 %h1, [%rd10];
  st.shared.b16 [%r22+768], %h1;
  add.u32 %r20, %r20, 2;
  setp.lt.u32 %p1, %r20, 768;
  @%p1 bra COPY;
DONE:
  bar.sync 0;
  mov.u64 %rd7, stage;
  add.u64 %rd8, %rd7, 768;
)";
  text = replace_all(text, "STAGE", space == "shared" ? shared_stage : global_stage);
  text = replace_all(text, "ALAYOUT", a_layout);
  text = replace_all(text, "BLAYOUT", b_layout);
  return replace_all(text, "SPACE", space);
}

}  // namespace

TEST_CASE("simt wmma layouts: a and b load by rows or columns, from global or shared, into the same fragments") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<uint16_t> a(16 * kLd), b(16 * kLd);
  for (uint16_t& x : a) x = float_to_half(u(rng));
  for (uint16_t& x : b) x = float_to_half(u(rng));
  for (const std::string space : {"global", "shared"})
    for (const std::string a_layout : {"row", "col"})
      for (const std::string b_layout : {"row", "col"}) {
        CAPTURE(space);
        CAPTURE(a_layout);
        CAPTURE(b_layout);
        const PtxKernel kernel = decode_kernel(parse_ptx(layouts_kernel(a_layout, b_layout, space), "layouts.ptx"), "");
        GlobalMemory memory;
        const uint64_t da = memory.upload(a, "A"), db = memory.upload(b, "B"), dd = memory.allocate(16 * 16 * 4, "D");
        LaunchConfig config;
        config.grid = {1, 1, 1};
        config.block = {32, 1, 1};
        FunctionalModel model(kernel, config,
                              bind_kernel_arguments(kernel, {KernelArgument::pointer(da), KernelArgument::pointer(db),
                                                             KernelArgument::pointer(dd)}),
                              memory);
        run_functional(model);
        const std::vector<float> d = memory.read<float>(dd, 16 * 16);
        // Logical A(m, k) and B(k, n), wherever the layout put them.
        auto at_a = [&](int m, int k) { return half_to_float(a[a_layout == "row" ? m * kLd + k : k * kLd + m]); };
        auto at_b = [&](int k, int n) { return half_to_float(b[b_layout == "row" ? k * kLd + n : n * kLd + k]); };
        int bad = 0;
        for (int m = 0; m < 16; ++m)
          for (int n = 0; n < 16; ++n) {
            float sum = 0.0f;
            for (int k = 0; k < 16; ++k) sum = sum + at_a(m, k) * at_b(k, n);
            bad += d[static_cast<size_t>(m * 16 + n)] != sum;
          }
        CHECK(bad == 0);
      }
}
