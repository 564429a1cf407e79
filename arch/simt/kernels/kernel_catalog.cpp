#include "arch/simt/kernels/kernel_catalog.h"

#include <algorithm>
#include <functional>
#include <set>

#include "sim/error.h"
#include "sim/text_file.h"

namespace loom::simt {

int element_bytes(ElementType type) {
  switch (type) {
    case ElementType::f16: return 2;
    case ElementType::f32:
    case ElementType::u32: return 4;
  }
  return 4;
}

namespace {

using Sizes = std::map<std::string, int64_t>;

uint32_t ceil_div(int64_t a, int64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

ArgumentSpec buffer_arg(int index) { return {ArgumentSpec::Kind::buffer, index, 0, 0}; }
ArgumentSpec int_arg(int64_t v) { return {ArgumentSpec::Kind::int32, -1, v, 0}; }
ArgumentSpec float_arg(double v) { return {ArgumentSpec::Kind::f32, -1, 0, v}; }

struct KernelRecipe {
  KernelInfo info;
  std::function<void(LaunchRecipe&, const Sizes&, const std::string& option)> build;
};

void require_multiple(const Sizes& s, const std::string& key, int64_t m, const std::string& kernel,
                      const std::string& option) {
  if (s.at(key) % m != 0) {
    throw InputError("", option + " " + key,
                     kernel + " needs " + key + " to be a multiple of " + std::to_string(m) + " (got " +
                         std::to_string(s.at(key)) + ")");
  }
}

// InputError naming `key` unless `holds`: "<kernel> needs <rule> (got key=value)".
void require(bool holds, const std::string& rule, const std::string& key, const LaunchRecipe& r, const Sizes& s,
             const std::string& option) {
  if (!holds) {
    throw InputError("", option + " " + key,
                     r.kernel + " needs " + rule + " (got " + key + "=" + std::to_string(s.at(key)) + ")");
  }
}

// Elements of a buffer with these dimensions, saturating at 2^56: each size may be up to
// 2^31, so a product of several overflows 64 bits; a saturated buffer is then refused by the
// launch limits (launch_limits.h) before anything is allocated.
int64_t elements(std::initializer_list<int64_t> dims) {
  constexpr int64_t kCap = int64_t{1} << 56;
  int64_t n = 1;
  for (int64_t d : dims) n = d != 0 && n > kCap / d ? kCap : n * d;
  return n;
}

void add_buffer(LaunchRecipe& r, std::string name, ElementType type, int64_t count, BufferInit init,
                bool output = false) {
  r.buffers.push_back({std::move(name), type, count, init, 1, output});
  r.args.push_back(buffer_arg(static_cast<int>(r.buffers.size()) - 1));
  r.compulsory_bytes += count * element_bytes(type);
}

// blocks = 0: one thread per element up to 65535 blocks, the grid-stride loop does the rest.
int64_t grid_stride_blocks(const Sizes& s, int64_t n) {
  return s.at("blocks") > 0 ? s.at("blocks") : std::min<int64_t>((n + 255) / 256, 65535);
}

// The row-major FP32 GEMMs share one launch: block 16x16, one thread per output.
void build_fp32_gemm(LaunchRecipe& r, const Sizes& s, const std::string&) {
  const int64_t m = s.at("M"), n = s.at("N"), k = s.at("K");
  r.block = {16, 16, 1};
  r.grid = {ceil_div(n, 16), ceil_div(m, 16), 1};
  add_buffer(r, "A", ElementType::f32, elements({m, k}), BufferInit::random);
  add_buffer(r, "B", ElementType::f32, elements({k, n}), BufferInit::random);
  add_buffer(r, "C", ElementType::f32, elements({m, n}), BufferInit::zeros, true);
  for (int64_t v : {m, n, k}) r.args.push_back(int_arg(v));
  r.flops = 2.0 * m * n * k;
}

const std::vector<KernelRecipe>& recipes() {
  static const std::vector<KernelRecipe> all = {
      {{"naive_gemm", "FP32 GEMM, one thread per output (C = A*B, row-major)", {{"M", 256}, {"N", 256}, {"K", 256}}},
       build_fp32_gemm},
      {{"tiled_gemm", "FP32 GEMM through 16x16 shared-memory tiles", {{"M", 256}, {"N", 256}, {"K", 256}}},
       build_fp32_gemm},
      {{"wmma_gemm", "tensor-core GEMM: FP16 in, FP32 accumulate, one 16x16 tile per warp",
        {{"M", 256}, {"N", 256}, {"K", 256}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string& option) {
         for (const char* key : {"M", "N", "K"}) require_multiple(s, key, 16, r.kernel, option);
         const int64_t m = s.at("M"), n = s.at("N"), k = s.at("K");
         r.block = {128, 1, 1};
         r.grid = {ceil_div(n, 64), static_cast<uint32_t>(m / 16), 1};
         add_buffer(r, "A", ElementType::f16, elements({m, k}), BufferInit::random);
         add_buffer(r, "B", ElementType::f16, elements({k, n}), BufferInit::random);  // column-major K x N
         add_buffer(r, "C", ElementType::f32, elements({m, n}), BufferInit::zeros, true);
         for (int64_t v : {m, n, k}) r.args.push_back(int_arg(v));
         r.flops = 2.0 * m * n * k;
       }},
      {{"relu_add", "element-wise y = max(a + b, 0), FP32", {{"n", 1 << 20}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string&) {
         const int64_t n = s.at("n");
         r.block = {256, 1, 1};
         r.grid = {ceil_div(n, 256), 1, 1};
         add_buffer(r, "a", ElementType::f32, n, BufferInit::random);
         add_buffer(r, "b", ElementType::f32, n, BufferInit::random);
         add_buffer(r, "y", ElementType::f32, n, BufferInit::zeros, true);
         r.args.push_back(int_arg(n));
         r.flops = 2.0 * n;
       }},
      {{"triad", "STREAM triad a = b + s*c, FP32, grid-stride loop (bandwidth)", {{"n", 1 << 22}, {"blocks", 0}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string&) {
         const int64_t n = s.at("n");
         const int64_t blocks = grid_stride_blocks(s, n);
         r.block = {256, 1, 1};
         r.grid = {static_cast<uint32_t>(blocks), 1, 1};
         add_buffer(r, "a", ElementType::f32, n, BufferInit::zeros, true);
         add_buffer(r, "b", ElementType::f32, n, BufferInit::random);
         add_buffer(r, "c", ElementType::f32, n, BufferInit::random);
         r.args.insert(r.args.begin() + 3, float_arg(3.0));  // (a, b, c, s, n)
         r.args.push_back(int_arg(n));
         r.flops = 2.0 * n;
       }},
      {{"pointer_chase", "one thread follows next[] (latency); footprint and stride in bytes",
        {{"footprint", 1 << 20}, {"stride", 128}, {"steps", 1024}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string& option) {
         require_multiple(s, "footprint", 4, r.kernel, option);
         require_multiple(s, "stride", 4, r.kernel, option);
         const int64_t count = s.at("footprint") / 4;
         r.block = {1, 1, 1};
         r.grid = {1, 1, 1};
         r.buffers.push_back({"next", ElementType::u32, count, BufferInit::chain, s.at("stride") / 4, false});
         r.args.push_back(buffer_arg(0));
         add_buffer(r, "out", ElementType::u32, 1, BufferInit::zeros, true);
         r.args.push_back(int_arg(s.at("steps")));
         r.compulsory_bytes += std::min(s.at("steps"), count) * 4;
       }},
      {{"reduction", "block sum through a shared-memory tree, FP32, one partial per block", {{"n", 1 << 20}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string&) {
         const int64_t n = s.at("n");
         r.block = {256, 1, 1};
         r.grid = {ceil_div(n, 512), 1, 1};
         add_buffer(r, "x", ElementType::f32, n, BufferInit::random);
         add_buffer(r, "partial", ElementType::f32, r.grid.x, BufferInit::zeros, true);
         r.args.push_back(int_arg(n));
         r.flops = static_cast<double>(n);
       }},
      {{"conv_implicit_gemm", "implicit-GEMM convolution, FP32, NCHW/KCRS/NKPQ",
        {{"N", 1}, {"C", 64}, {"H", 56}, {"W", 56}, {"K", 64}, {"R", 3}, {"S", 3}, {"stride", 1}, {"pad", 1}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string& option) {
         const int64_t n = s.at("N"), c = s.at("C"), h = s.at("H"), w = s.at("W"), k = s.at("K"), rr = s.at("R"),
                       ss = s.at("S"), stride = s.at("stride"), pad = s.at("pad");
         const int64_t p = (h + 2 * pad - rr) / stride + 1, q = (w + 2 * pad - ss) / stride + 1;
         if (h + 2 * pad < rr || w + 2 * pad < ss) {
           throw InputError("", option, "conv_implicit_gemm: the filter is larger than the padded input");
         }
         r.sizes["P"] = p;
         r.sizes["Q"] = q;
         r.block = {16, 16, 1};
         r.grid = {ceil_div(k, 16), ceil_div(elements({n, p, q}), 16), 1};  // truncated only when y is refused
         add_buffer(r, "x", ElementType::f32, elements({n, c, h, w}), BufferInit::random);
         add_buffer(r, "w", ElementType::f32, elements({k, c, rr, ss}), BufferInit::random);
         add_buffer(r, "y", ElementType::f32, elements({n, k, p, q}), BufferInit::zeros, true);
         for (int64_t v : {n, c, h, w, k, rr, ss, p, q, stride, pad}) r.args.push_back(int_arg(v));
         r.flops = 2.0 * n * k * p * q * c * rr * ss;
       }},
      // The microbenchmarks below calibrate a GPU config against measurements of a real GPU
      // (latencies and throughputs); each is written to time one thing.
      {{"shared_chase", "one thread follows a ring of shared-memory addresses, p = *p (shared-memory latency)",
        {{"steps", 1024}, {"count", 1024}, {"stride", 1}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string& option) {
         require(s.at("count") <= 4096, "count <= 4096 (its shared array holds 4096 entries)", "count", r, s, option);
         require(s.at("stride") < s.at("count"), "stride < count", "stride", r, s, option);
         r.block = {1, 1, 1};
         r.grid = {1, 1, 1};
         add_buffer(r, "out", ElementType::u32, 1, BufferInit::zeros, true);
         for (const char* key : {"steps", "count", "stride"}) r.args.push_back(int_arg(s.at(key)));
       }},
      {{"address_chase",
        "one thread builds a ring of global addresses, then follows it, p = *p (latency); footprint and stride "
        "in bytes",
        {{"footprint", 1 << 20}, {"stride", 128}, {"steps", 1024}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string& option) {
         // The same sizes as pointer_chase, so a probe switches between the two by name.
         require_multiple(s, "stride", 8, r.kernel, option);
         require_multiple(s, "footprint", s.at("stride"), r.kernel, option);
         const int64_t count = s.at("footprint") / s.at("stride");
         r.block = {1, 1, 1};
         r.grid = {1, 1, 1};
         // The kernel writes the ring itself (u64 addresses, one per `stride` bytes); the
         // buffer is described as u32 words, the element types the recipes know.
         r.buffers.push_back({"chain", ElementType::u32, s.at("footprint") / 4, BufferInit::zeros, 1, false});
         r.args.push_back(buffer_arg(0));
         add_buffer(r, "out", ElementType::u32, 1, BufferInit::zeros, true);
         for (int64_t v : {count, s.at("stride"), s.at("steps")}) r.args.push_back(int_arg(v));
         r.compulsory_bytes += count * 8;  // one address written per element
       }},
      {{"fma_chain", "one dependent FP32 FMA chain per thread (FMA latency; throughput with many warps)",
        {{"steps", 1024}, {"blocks", 1}, {"threads", 32}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string& option) {
         require(s.at("blocks") >= 1, "blocks >= 1", "blocks", r, s, option);
         const int64_t threads = elements({s.at("threads"), s.at("blocks")});
         r.block = {static_cast<uint32_t>(s.at("threads")), 1, 1};
         r.grid = {static_cast<uint32_t>(s.at("blocks")), 1, 1};
         add_buffer(r, "out", ElementType::f32, threads, BufferInit::zeros, true);
         r.args.push_back(int_arg(s.at("steps")));
         r.flops = 2.0 * static_cast<double>(s.at("steps")) * static_cast<double>(threads);
       }},
      {{"mma_chain", "dependent WMMA m16n16k16 MMAs per warp, FP16 in, FP32 accumulate (tensor latency)",
        {{"steps", 256}, {"blocks", 1}, {"threads", 32}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string& option) {
         require(s.at("blocks") >= 1, "blocks >= 1", "blocks", r, s, option);
         require_multiple(s, "threads", 32, r.kernel, option);
         // Below 2^20 steps every partial sum is exact in FP32, so the check can be exact.
         require(s.at("steps") < (1 << 20), "steps < 2^20 (to keep its sums exact)", "steps", r, s, option);
         const int64_t warps = elements({s.at("threads") / 32, s.at("blocks")});
         r.block = {static_cast<uint32_t>(s.at("threads")), 1, 1};
         r.grid = {static_cast<uint32_t>(s.at("blocks")), 1, 1};
         add_buffer(r, "out", ElementType::f32, elements({warps, 256}), BufferInit::zeros, true);
         r.args.push_back(int_arg(s.at("steps")));
         r.flops = 2.0 * 16 * 16 * 16 * static_cast<double>(s.at("steps")) * static_cast<double>(warps);
       }},
      {{"stream_read", "grid-stride FP32 sums of x, loaded with ld.global.cg: L2, not L1 (read bandwidth)",
        {{"n", 1 << 20}, {"passes", 2}, {"blocks", 0}}},
       [](LaunchRecipe& r, const Sizes& s, const std::string&) {
         const int64_t n = s.at("n");
         const int64_t blocks = grid_stride_blocks(s, n);
         r.block = {256, 1, 1};
         r.grid = {static_cast<uint32_t>(blocks), 1, 1};
         add_buffer(r, "x", ElementType::f32, n, BufferInit::random);
         add_buffer(r, "out", ElementType::f32, elements({blocks, 256}), BufferInit::zeros, true);
         r.args.push_back(int_arg(n));
         r.args.push_back(int_arg(s.at("passes")));
         r.flops = static_cast<double>(n) * static_cast<double>(s.at("passes"));
       }},
  };
  return all;
}

const KernelRecipe& find_recipe(const std::string& name, const std::string& option) {
  for (const KernelRecipe& k : recipes()) {
    if (k.info.name == name) return k;
  }
  std::string names;
  for (const KernelRecipe& k : recipes()) names += (names.empty() ? "" : ", ") + k.info.name;
  throw InputError("", option, "a shipped kernel name (" + names + ") or a .ptx file; got '" + name + "'");
}

}  // namespace

const std::vector<KernelInfo>& kernel_catalog() {
  static const std::vector<KernelInfo> infos = [] {
    std::vector<KernelInfo> v;
    for (const KernelRecipe& k : recipes()) v.push_back(k.info);
    return v;
  }();
  return infos;
}

bool is_catalog_kernel(const std::string& name) {
  return std::any_of(recipes().begin(), recipes().end(), [&](const KernelRecipe& k) { return k.info.name == name; });
}

LaunchRecipe make_launch_recipe(const std::string& kernel, const Sizes& sizes, const std::string& option) {
  const KernelRecipe& recipe = find_recipe(kernel, "--kernel");
  LaunchRecipe r;
  r.kernel = kernel;
  r.entry = kernel;
  r.ptx_file = "validate/kernels/" + kernel + ".ptx";
  std::string known;
  for (const auto& [key, fallback] : recipe.info.size_defaults) {
    r.sizes[key] = fallback;
    known += (known.empty() ? "" : ", ") + key;
  }
  for (const auto& [key, value] : sizes) {
    if (!r.sizes.count(key)) {
      throw InputError("", option + " " + key, kernel + " takes the sizes " + known + "; '" + key + "' is not one");
    }
    // Padding and "blocks = 0 (automatic)" may be zero; every other size is a count.
    const bool may_be_zero = key == "pad" || key == "blocks";
    if (value < (may_be_zero ? 0 : 1) || value > (int64_t{1} << 31) - 1) {
      throw InputError("", option + " " + key,
                       std::string(may_be_zero ? "a size from 0" : "a positive size") + " below 2^31 (got " +
                           std::to_string(value) + ")");
    }
    r.sizes[key] = value;
  }
  recipe.build(r, r.sizes, option);
  return r;
}

std::map<std::string, int64_t> size_parameters(const LaunchRecipe& recipe) {
  std::map<std::string, int64_t> sizes;
  for (const auto& [key, fallback] : find_recipe(recipe.kernel, "--kernel").info.size_defaults)
    sizes[key] = recipe.sizes.count(key) ? recipe.sizes.at(key) : fallback;
  return sizes;
}

std::string format_size_list(const std::string& kernel, const std::map<std::string, int64_t>& sizes) {
  std::string text;
  auto add = [&](const std::string& key, int64_t value) {
    text += (text.empty() ? "" : ",") + key + "=" + std::to_string(value);
  };
  std::set<std::string> done;
  if (is_catalog_kernel(kernel))
    for (const auto& parameter : find_recipe(kernel, "--kernel").info.size_defaults)
      if (const auto it = sizes.find(parameter.first); it != sizes.end()) {
        add(it->first, it->second);
        done.insert(it->first);
      }
  for (const auto& [key, value] : sizes)
    if (!done.count(key)) add(key, value);
  return text;
}

std::map<std::string, int64_t> parse_size_list(const std::string& text, const std::string& option) {
  std::map<std::string, int64_t> sizes;
  if (trim(text).empty()) return sizes;  // every size at its default
  for (const std::string& item : split_trimmed(text, ',')) {
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string::npos || eq == 0) {
      throw InputError("", option, "a list like M=256,N=128,K=64; got '" + text + "'");
    }
    const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    try {
      size_t used = 0;
      const long long v = std::stoll(value, &used, 0);
      if (used != value.size()) throw std::invalid_argument(value);
      sizes[key] = v;
    } catch (const std::exception&) {
      throw InputError("", option + " " + key, "an integer (got '" + value + "')");
    }
  }
  return sizes;
}

}  // namespace loom::simt
