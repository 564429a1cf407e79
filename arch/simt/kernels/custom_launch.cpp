#include "arch/simt/kernels/custom_launch.h"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "sim/error.h"
#include "sim/text_file.h"

namespace loom::simt {

namespace {

bool parse_integer(const std::string& s, int64_t& value) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtoll(s.c_str(), &end, 0);
  return errno == 0 && end == s.c_str() + s.size();
}

bool parse_real(const std::string& s, double& value) {
  if (s.empty()) return false;
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// "f32[1024]" or "f16[256]:zeros" -> a buffer; false when the item is not a buffer.
bool parse_buffer(const std::string& item, int index, BufferSpec& buffer, const std::string& option) {
  const size_t open = item.find('[');
  if (open == std::string::npos) return false;
  const std::string type = item.substr(0, open);
  const size_t close = item.find(']', open);
  const std::string expected = "a buffer like f32[1024], f16[256] or u32[64], optionally followed by :zeros";
  if (close == std::string::npos) throw InputError("", option + " item " + std::to_string(index + 1), expected);
  if (type == "f32") buffer.type = ElementType::f32;
  else if (type == "f16") buffer.type = ElementType::f16;
  else if (type == "u32") buffer.type = ElementType::u32;
  else throw InputError("", option + " item " + std::to_string(index + 1), expected + "; got '" + item + "'");
  int64_t count = 0;
  if (!parse_integer(item.substr(open + 1, close - open - 1), count) || count < 1 || count > (int64_t{1} << 34)) {
    throw InputError("", option + " item " + std::to_string(index + 1),
                     "a buffer element count from 1 to 2^34; got '" + item + "'");
  }
  const std::string rest = item.substr(close + 1);
  if (!rest.empty() && rest != ":zeros" && rest != ":random") {
    throw InputError("", option + " item " + std::to_string(index + 1), expected + "; got '" + item + "'");
  }
  buffer.name = "arg" + std::to_string(index);
  buffer.count = count;
  buffer.init = rest == ":zeros" ? BufferInit::zeros : BufferInit::random;
  return true;
}

}  // namespace

Dim3 parse_dim3(const std::string& text, const std::string& option) {
  const std::vector<std::string> items = split_trimmed(text, ',');
  Dim3 d;
  uint32_t* fields[] = {&d.x, &d.y, &d.z};
  if (text.empty() || items.size() > 3) throw InputError("", option, "dimensions x[,y[,z]], e.g. 16,64; got '" + text + "'");
  for (size_t i = 0; i < items.size(); ++i) {
    int64_t v = 0;
    if (!parse_integer(items[i], v) || v < 1 || v > 0xffffffffll) {
      throw InputError("", option, "positive integer dimensions x[,y[,z]], e.g. 16,64; got '" + text + "'");
    }
    *fields[i] = static_cast<uint32_t>(v);
  }
  return d;
}

LaunchRecipe make_custom_recipe(const PtxKernel& kernel, const std::string& ptx_path, const std::string& grid,
                                const std::string& block, const std::string& args) {
  if (grid.empty()) throw InputError("", "--grid", "the grid dimensions of a .ptx launch, e.g. --grid 16,64");
  if (block.empty()) throw InputError("", "--block", "the block dimensions of a .ptx launch, e.g. --block 128");
  LaunchRecipe r;
  r.kernel = ptx_path;
  r.ptx_file = ptx_path;
  r.entry = kernel.name;
  r.grid = parse_dim3(grid, "--grid");
  r.block = parse_dim3(block, "--block");
  const std::vector<std::string> items = args.empty() ? std::vector<std::string>{} : split_trimmed(args, ',');
  for (size_t i = 0; i < items.size(); ++i) {
    const int index = static_cast<int>(i);
    BufferSpec buffer;
    int64_t integer = 0;
    double real = 0;
    if (parse_buffer(items[i], index, buffer, "--args")) {
      r.compulsory_bytes += buffer.bytes();
      r.buffers.push_back(buffer);
      r.args.push_back({ArgumentSpec::Kind::buffer, static_cast<int>(r.buffers.size()) - 1, 0, 0});
    } else if (parse_integer(items[i], integer)) {
      r.args.push_back({ArgumentSpec::Kind::int32, -1, integer, 0});
    } else if (parse_real(items[i], real)) {
      const bool wants_f64 = i < kernel.params.size() && kernel.params[i].type == PtxType::f64;
      r.args.push_back({wants_f64 ? ArgumentSpec::Kind::f64 : ArgumentSpec::Kind::f32, -1, 0, real});
    } else {
      throw InputError("", "--args item " + std::to_string(i + 1),
                       "a buffer (f32[N], f16[N], u32[N]), an integer or a float; got '" + items[i] + "'");
    }
  }
  return r;
}

}  // namespace loom::simt
