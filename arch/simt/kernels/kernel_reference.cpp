#include "arch/simt/kernels/kernel_reference.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "arch/simt/ptx/half_float.h"
#include "arch/simt/ptx/half_float_batch.h"

namespace loom::simt {

namespace {

constexpr double kUnitRoundoff = 1.0 / (1 << 24);  // 2^-24, FP32

// SplitMix64: a tiny, fully specified generator, so inputs are identical everywhere.
uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <typename T>
T load(const HostBuffer& b, int64_t i) {
  T v;
  std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}

// Element i of a buffer as a double, whatever its element type.
double value_at(const BufferSpec& spec, const HostBuffer& b, int64_t i) {
  switch (spec.type) {
    case ElementType::f32: return load<float>(b, i);
    case ElementType::f16: return half_to_float(load<uint16_t>(b, i));
    case ElementType::u32: return load<uint32_t>(b, i);
  }
  return 0;
}

Eigen::MatrixXd as_matrix(const BufferSpec& spec, const HostBuffer& b, int64_t rows, int64_t cols, bool row_major) {
  Eigen::MatrixXd m(rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) m(r, c) = value_at(spec, b, row_major ? r * cols + c : c * rows + r);
  return m;
}

struct Checker {
  const LaunchRecipe& recipe;
  VerifyResult result;

  // One output element: exact value, sum of |terms| and number of terms give the bound.
  void check(const std::string& buffer, int64_t index, double got, double exact, double abs_sum, int64_t terms,
             bool exact_required) {
    ++result.checked;
    const double bound = exact_required ? 0.0 : (double(terms) + 2) * kUnitRoundoff * abs_sum;
    const double error = std::fabs(got - exact);
    const bool pass = exact_required ? got == exact : error <= bound;
    if (bound > 0) result.worst_ratio = std::max(result.worst_ratio, error / bound);
    if (pass && !std::isnan(got)) return;
    ++result.mismatches;
    result.ok = false;
    if (result.first_mismatch.empty()) {
      std::ostringstream s;
      s.precision(9);
      s << buffer << "[" << index << "] = " << got << ", expected " << exact << " (bound " << bound << ")";
      result.first_mismatch = s.str();
    }
  }
};

void verify_gemm(Checker& c, const std::vector<HostBuffer>& before, const HostBuffer& out, bool b_col_major) {
  const LaunchRecipe& r = c.recipe;
  const int64_t m = r.sizes.at("M"), n = r.sizes.at("N"), k = r.sizes.at("K");
  const Eigen::MatrixXd a = as_matrix(r.buffers[0], before[0], m, k, true);
  const Eigen::MatrixXd b = as_matrix(r.buffers[1], before[1], k, n, !b_col_major);
  const Eigen::MatrixXd exact = a * b;
  const Eigen::MatrixXd abs_sum = a.cwiseAbs() * b.cwiseAbs();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c.check("C", i * n + j, load<float>(out, i * n + j), exact(i, j), abs_sum(i, j), k, false);
}

void verify_conv(Checker& c, const std::vector<HostBuffer>& before, const HostBuffer& out) {
  const auto& s = c.recipe.sizes;
  const int64_t n = s.at("N"), ch = s.at("C"), h = s.at("H"), w = s.at("W"), k = s.at("K"), rr = s.at("R"),
                ss = s.at("S"), p = s.at("P"), q = s.at("Q"), stride = s.at("stride"), pad = s.at("pad");
  // im2col as an Eigen product: rows = output pixels, cols = C*R*S.
  const int64_t crs = ch * rr * ss;
  Eigen::MatrixXd cols = Eigen::MatrixXd::Zero(n * p * q, crs);
  for (int64_t img = 0; img < n; ++img)
    for (int64_t y = 0; y < p; ++y)
      for (int64_t x = 0; x < q; ++x)
        for (int64_t cc = 0; cc < ch; ++cc)
          for (int64_t dy = 0; dy < rr; ++dy)
            for (int64_t dx = 0; dx < ss; ++dx) {
              const int64_t iy = y * stride - pad + dy, ix = x * stride - pad + dx;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              cols((img * p + y) * q + x, (cc * rr + dy) * ss + dx) = load<float>(before[0], ((img * ch + cc) * h + iy) * w + ix);
            }
  const Eigen::MatrixXd filters = as_matrix(c.recipe.buffers[1], before[1], k, crs, true);
  const Eigen::MatrixXd exact = cols * filters.transpose();
  const Eigen::MatrixXd abs_sum = cols.cwiseAbs() * filters.cwiseAbs().transpose();
  for (int64_t img = 0; img < n; ++img)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t pix = 0; pix < p * q; ++pix) {
        const int64_t index = (img * k + kk) * p * q + pix;
        c.check("y", index, load<float>(out, index), exact(img * p * q + pix, kk), abs_sum(img * p * q + pix, kk), crs,
                false);
      }
}

// fma_chain: each thread's chain recomputed with std::fmaf, the single rounding of the
// kernel's fma.rn.f32, from the same a, b and start, so it must match bit for bit.
void verify_fma_chain(Checker& c, const HostBuffer& out) {
  const LaunchRecipe& r = c.recipe;
  const int64_t threads = int64_t{r.block.x} * r.grid.x, steps = r.sizes.at("steps");
  const float a = 1.0f - 1.0f / 1024, b = 0.001f;
  for (int64_t id = 0; id < threads; ++id) {
    float x = static_cast<float>(id) * (1.0f / 1024);
    for (int64_t i = 0; i < steps; ++i) x = std::fmaf(x, a, b);
    c.check("out", id, load<float>(out, id), x, 0, 1, true);
  }
}

// stream_read: each thread's sum in the kernel's order (passes, then its grid-stride
// elements in index order), one FP32 rounding per add as the kernel does, so it must match.
void verify_stream_read(Checker& c, const HostBuffer& x, const HostBuffer& out) {
  const LaunchRecipe& r = c.recipe;
  const int64_t n = r.sizes.at("n"), passes = r.sizes.at("passes"), threads = int64_t{r.block.x} * r.grid.x;
  for (int64_t id = 0; id < threads; ++id) {
    float sum = 0.0f;
    for (int64_t p = 0; p < passes; ++p)
      for (int64_t i = id; i < n; i += threads) sum += load<float>(x, i);
    c.check("out", id, load<float>(out, id), sum, 0, 1, true);
  }
}

// n random values in [-1, 1), each 24 random bits and so exact in FP32. The draws are
// independent but for the counter, so the compiler runs them four at a time where the host
// has AVX2 (target_clones picks the version when the program loads): 0.6 ns a value
// against 1.2.
__attribute__((target_clones("avx2", "default"))) void draw_values(uint64_t& state, int64_t n, float* values) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t bits = static_cast<int32_t>(splitmix(state) >> 40) - (1 << 23);
    values[i] = static_cast<float>(bits) / float(1 << 23);
  }
}

}  // namespace

void write_initial_buffer(const BufferSpec& spec, uint64_t& state, uint8_t* out) {
  switch (spec.init) {
    case BufferInit::zeros:
      return;  // `out` is zero-filled already
    case BufferInit::chain:
      for (int64_t i = 0; i < spec.count; ++i) {
        const uint32_t next = static_cast<uint32_t>((i + spec.chain_stride) % spec.count);
        std::memcpy(out + i * 4, &next, 4);
      }
      return;
    case BufferInit::random:
      break;
  }
  // A chunk of values at a time, rounded to fp16 together where the buffer holds fp16
  // (floats_to_halves). Drawn and rounded one at a time, a value took 4 ns: 8 ms of the
  // 1024^3 WMMA GEMM's benchmark run.
  constexpr int64_t kChunk = 512;
  float values[kChunk];
  uint16_t halves[kChunk];
  for (int64_t first = 0; first < spec.count; first += kChunk) {
    const int64_t n = std::min(kChunk, spec.count - first);
    draw_values(state, n, values);
    if (spec.type == ElementType::f16) {
      floats_to_halves(values, static_cast<size_t>(n), halves);
      std::memcpy(out + first * 2, halves, static_cast<size_t>(n) * 2);
    } else {
      std::memcpy(out + first * 4, values, static_cast<size_t>(n) * 4);
    }
  }
}

std::vector<HostBuffer> initial_buffers(const LaunchRecipe& recipe, uint64_t seed) {
  std::vector<HostBuffer> buffers;
  uint64_t state = seed;
  for (const BufferSpec& spec : recipe.buffers) {
    HostBuffer b(static_cast<size_t>(spec.bytes()), 0);
    write_initial_buffer(spec, state, b.data());
    buffers.push_back(std::move(b));
  }
  return buffers;
}

VerifyResult verify_outputs(const LaunchRecipe& recipe, const std::vector<HostBuffer>& before,
                            const std::vector<HostBuffer>& after) {
  Checker c{recipe, {}};
  const auto& s = recipe.sizes;
  const std::string& k = recipe.kernel;
  if (k == "naive_gemm" || k == "tiled_gemm") {
    verify_gemm(c, before, after[2], false);
  } else if (k == "wmma_gemm") {
    verify_gemm(c, before, after[2], true);
  } else if (k == "conv_implicit_gemm") {
    verify_conv(c, before, after[2]);
  } else if (k == "relu_add") {
    for (int64_t i = 0; i < s.at("n"); ++i) {
      const float sum = load<float>(before[0], i) + load<float>(before[1], i);  // one FP32 rounding, as the kernel
      c.check("y", i, load<float>(after[2], i), std::max(sum, 0.0f), 0, 1, true);
    }
  } else if (k == "triad") {
    for (int64_t i = 0; i < s.at("n"); ++i) {
      const double b = load<float>(before[1], i), cc = load<float>(before[2], i);
      c.check("a", i, load<float>(after[0], i), b + 3.0 * cc, std::fabs(b) + std::fabs(3.0 * cc), 2, false);
    }
  } else if (k == "reduction") {
    const int64_t n = s.at("n");
    for (int64_t block = 0; block < recipe.grid.x; ++block) {
      double exact = 0, abs_sum = 0;
      for (int64_t i = block * 512; i < std::min(n, block * 512 + 512); ++i) {
        const double v = load<float>(before[0], i);
        exact += v;
        abs_sum += std::fabs(v);
      }
      c.check("partial", block, load<float>(after[1], block), exact, abs_sum, 512, false);
    }
  } else if (k == "pointer_chase") {
    const int64_t count = recipe.buffers[0].count;
    uint32_t j = 0;
    for (int64_t i = 0; i < s.at("steps"); ++i) j = load<uint32_t>(before[0], j % count);
    c.check("out", 0, load<uint32_t>(after[1], 0), j, 0, 1, true);
  } else if (k == "shared_chase") {
    // Each step moves `stride` along the ring of `count` entries.
    const uint32_t j = static_cast<uint32_t>(s.at("steps") * s.at("stride") % s.at("count"));
    c.check("out", 0, load<uint32_t>(after[0], 0), j, 0, 1, true);
  } else if (k == "address_chase") {
    // Each step moves to the next element of the ring of footprint / stride elements.
    const uint32_t j = static_cast<uint32_t>(s.at("steps") % (s.at("footprint") / s.at("stride")));
    c.check("out", 0, load<uint32_t>(after[1], 0), j, 0, 1, true);
  } else if (k == "fma_chain") {
    verify_fma_chain(c, after[0]);
  } else if (k == "mma_chain") {
    // Every MMA adds 16 * (1/64)^2 = 2^-8 to each element; the catalog keeps steps < 2^20,
    // where every partial sum is a multiple of 2^-12 below 2^12, exact in FP32 in any order.
    const double exact = static_cast<double>(s.at("steps")) / 256;
    for (int64_t i = 0; i < recipe.buffers[0].count; ++i) c.check("out", i, load<float>(after[0], i), exact, 0, 1, true);
  } else if (k == "stream_read") {
    verify_stream_read(c, before[0], after[1]);
  }
  return c.result;
}

}  // namespace loom::simt
