#include "mapper/mapping.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/error.h"

namespace loom {

namespace {

constexpr const char* kMappingSchema = "loom-mapping/1";

// The non-unit temporal loops of a level, outermost first. Unit loops do not exist in
// the nest (they run once), so where they sit in `order` means nothing.
std::vector<int> active_order(const LevelMapping& lm) {
  std::vector<int> out;
  for (int8_t d : lm.order)
    if (lm.temporal[d] != 1) out.push_back(d);
  return out;
}

std::string level_names(const HierarchyConfig& arch) {
  std::string s;
  for (const StorageLevel& l : arch.levels) {
    if (!s.empty()) s += ", ";
    s += l.name;
  }
  return s;
}

std::string loop_names(const Problem& problem) {
  std::string s;
  for (int d = 0; d < kNumDims; ++d) {
    if (d) s += ' ';
    s += problem.dim_name(d);
  }
  return s;
}

std::string kind_word(const Problem& problem) { return problem.is_gemm ? "GEMM" : "convolution"; }

}  // namespace

int64_t Mapping::extent_below(int level, int dim) const {
  int64_t e = 1;
  for (int l = std::max(level, 0); l < num_levels; ++l) {
    const LevelMapping& lm = levels[l];
    e *= lm.temporal[dim] * lm.spatial_x[dim] * lm.spatial_y[dim];
  }
  return e;
}

// Equal as loop nests: same factors everywhere and the same order of the loops that
// actually iterate. The position of a factor-1 loop in `order` is not part of the nest,
// and JSON written by hand may leave it out, so it does not count here.
bool Mapping::operator==(const Mapping& o) const {
  if (num_levels != o.num_levels) return false;
  for (int l = 0; l < num_levels; ++l) {
    const LevelMapping& a = levels[l];
    const LevelMapping& b = o.levels[l];
    if (a.temporal != b.temporal || a.spatial_x != b.spatial_x || a.spatial_y != b.spatial_y) return false;
    if (active_order(a) != active_order(b)) return false;
  }
  return true;
}

std::array<int8_t, kNumDims> loop_order(const std::vector<int>& outer) {
  std::array<int8_t, kNumDims> order{};
  std::array<bool, kNumDims> placed{};
  int n = 0;
  for (int d : outer) order[n++] = static_cast<int8_t>(d), placed[d] = true;
  for (int d = 0; d < kNumDims; ++d)
    if (!placed[d]) order[n++] = static_cast<int8_t>(d);
  return order;
}

std::array<int8_t, kNumDims> loop_order(std::initializer_list<int> outer) {
  return loop_order(std::vector<int>(outer));
}

Mapping outermost_mapping(const Problem& problem, const HierarchyConfig& arch) {
  LOOM_CHECK(arch.num_levels() >= 1 && arch.num_levels() <= kMaxLevels, "mapping",
             "architecture with " + std::to_string(arch.num_levels()) + " levels");
  Mapping m;
  m.num_levels = arch.num_levels();
  m.levels[0].temporal = problem.bound;  // order stays N K C P Q R S
  return m;
}

std::string format_loop_nest(const Mapping& m, const Problem& problem, const HierarchyConfig& arch) {
  struct Line {
    std::string level, kind, text;
  };
  std::vector<Line> lines;
  int depth = 0;
  auto loop = [&](const std::string& level, const char* kind, int level_index, int dim, int64_t factor,
                  const char* suffix) {
    // The loop variable is the dimension plus the level index (plus the mesh axis for a
    // spatial loop), so the same dimension split over levels reads P0, P1, P2x, ...
    const std::string var = std::string(problem.dim_name(dim)) + std::to_string(level_index) + suffix;
    lines.push_back({level, kind,
                     std::string(2 * depth, ' ') + "for " + var + " in [0, " + std::to_string(factor) + ")"});
    ++depth;
  };
  for (int l = 0; l < m.num_levels; ++l) {
    const LevelMapping& lm = m.levels[l];
    const std::string& name = l < arch.num_levels() ? arch.levels[l].name : "level" + std::to_string(l);
    const size_t before = lines.size();
    for (int d : active_order(lm)) loop(name, "", l, d, lm.temporal[d], "");
    // Spatial loops run in parallel, so their order is only a convention: rows (y), then
    // columns (x), each in dimension order.
    for (int d = 0; d < kNumDims; ++d)
      if (lm.spatial_y[d] != 1) loop(name, "spatial-y", l, d, lm.spatial_y[d], "y");
    for (int d = 0; d < kNumDims; ++d)
      if (lm.spatial_x[d] != 1) loop(name, "spatial-x", l, d, lm.spatial_x[d], "x");
    if (lines.size() == before) lines.push_back({name, "", std::string(2 * depth, ' ') + "(no loops)"});
  }
  // The input index shows the stride and dilation, so the sliding window reads right.
  auto window = [](int64_t stride, const char* out, int64_t dilation, const char* filter) {
    return (stride > 1 ? std::to_string(stride) : std::string()) + out + "+" +
           (dilation > 1 ? std::to_string(dilation) : std::string()) + filter;
  };
  const std::string body =
      problem.is_gemm ? "C[m][n] += A[m][k] * B[k][n]"
                      : "outputs[n][k][p][q] += weights[k][c][r][s] * inputs[n][c][" +
                            window(problem.stride_h, "p", problem.dilation_h, "r") + "][" +
                            window(problem.stride_w, "q", problem.dilation_w, "s") + "]";
  lines.push_back({"MAC", "", std::string(2 * depth, ' ') + body});

  size_t level_w = 5, kind_w = 0;
  for (const Line& ln : lines) {
    level_w = std::max(level_w, ln.level.size());
    kind_w = std::max(kind_w, ln.kind.size());
  }
  std::string out;
  for (const Line& ln : lines) {
    std::string row = ln.level + std::string(level_w - ln.level.size() + 2, ' ');
    if (kind_w) row += ln.kind + std::string(kind_w - ln.kind.size() + 2, ' ');
    row += ln.text;
    out += row + "\n";
  }
  if (problem.groups > 1) {
    out += "(the nest repeats for each of the " + std::to_string(problem.groups) + " groups)\n";
  }
  return out;
}

Json mapping_to_json(const Mapping& m, const Problem& problem, const HierarchyConfig& arch) {
  LOOM_CHECK(m.num_levels == arch.num_levels(), "mapping", "mapping and architecture level counts differ");
  auto factors = [&](const DimArray& f) {
    Json j = Json::object();
    for (int d = 0; d < kNumDims; ++d)
      if (f[d] != 1) j[problem.dim_name(d)] = f[d];
    return j;
  };
  Json levels = Json::array();
  for (int l = 0; l < m.num_levels; ++l) {
    const LevelMapping& lm = m.levels[l];
    // The full order (unit loops included) so the file reproduces the exact struct; a
    // hand-written file may list only the loops that iterate.
    std::string order;
    for (int8_t d : lm.order) order += problem.dim_name(d);
    levels.push_back({{"level", arch.levels[l].name},
                      {"temporal", factors(lm.temporal)},
                      {"order", order},
                      {"spatial_x", factors(lm.spatial_x)},
                      {"spatial_y", factors(lm.spatial_y)}});
  }
  return {{"schema", kMappingSchema}, {"levels", levels}};
}

namespace {

// Reads {"K": 2, "P": 7} into `out` (dims not named stay 1).
void read_factors(JsonReader& level, const std::string& key, const Problem& problem, DimArray& out) {
  const Json* v = level.optional_value(key);
  if (!v) return;
  if (!v->is_object()) {
    level.fail(key, "expected an object of loop factors such as {\"K\": 2, \"P\": 7}, got " + v->dump());
  }
  JsonReader r(*v, level.file(), level.field(key));
  for (auto it = v->begin(); it != v->end(); ++it) {
    const int d = problem.parse_dim(it.key());
    if (d < 0) {
      r.fail(it.key(), "unknown loop '" + it.key() + "' (loops of this " + kind_word(problem) +
                           " layer: " + loop_names(problem) + ")");
    }
    out[d] = r.positive_integer(it.key());
  }
}

// "KPC" or ["K", "P", "C"]: loops outermost first. Dims not listed follow, innermost, in
// the default order N K C P Q R S.
void read_order(JsonReader& level, const Problem& problem, std::array<int8_t, kNumDims>& order) {
  const Json* v = level.optional_value("order");
  if (!v) return;
  const std::string field = level.field("order");
  std::vector<std::string> names;
  if (v->is_string()) {
    // Every loop name is one letter, so a string lists them letter by letter.
    for (char ch : v->get<std::string>()) names.emplace_back(1, ch);
  } else if (v->is_array()) {
    for (const Json& e : *v) {
      if (!e.is_string()) throw InputError(level.file(), field, "expected loop names as strings, got " + e.dump());
      names.push_back(e.get<std::string>());
    }
  } else {
    throw InputError(level.file(), field,
                     "expected a string of loop names outermost first (e.g. \"KPC\") or an array of them, got " +
                         v->dump());
  }
  std::array<bool, kNumDims> seen{};
  std::vector<int> listed;
  for (const std::string& name : names) {
    const int d = problem.parse_dim(name);
    if (d < 0) {
      throw InputError(level.file(), field,
                       "unknown loop '" + name + "' (loops of this " + kind_word(problem) +
                           " layer: " + loop_names(problem) + ")");
    }
    if (seen[d]) throw InputError(level.file(), field, "loop '" + name + "' is listed twice");
    seen[d] = true;
    listed.push_back(d);
  }
  order = loop_order(listed);
}

}  // namespace

Mapping parse_mapping_json(const Json& json, const std::string& file, const Problem& problem,
                           const HierarchyConfig& arch) {
  JsonReader root(json, file, "");
  root.choice("schema", {kMappingSchema}, kMappingSchema);
  std::vector<JsonReader> level_readers = root.array_of_objects("levels");
  root.finish();
  const int n = arch.num_levels();
  if (static_cast<int>(level_readers.size()) != n) {
    root.fail("levels", "expected " + std::to_string(n) + " levels, one per storage level of " + arch.name +
                            " outermost first (" + level_names(arch) + "), got " +
                            std::to_string(level_readers.size()));
  }
  Mapping m;
  m.num_levels = n;
  // Running product of each dimension's factors: a product above the bound can never
  // cover the layer, and stopping there keeps later products far from overflow.
  DimArray product{1, 1, 1, 1, 1, 1, 1};
  for (int l = 0; l < n; ++l) {
    JsonReader& r = level_readers[l];
    const std::string name = r.string("level");
    if (name != arch.levels[l].name) {
      const bool known = std::any_of(arch.levels.begin(), arch.levels.end(),
                                     [&](const StorageLevel& s) { return s.name == name; });
      r.fail("level", (known ? "level '" + name + "' is out of place: expected '" + arch.levels[l].name + "'"
                             : "unknown level '" + name + "' (expected '" + arch.levels[l].name + "')") +
                          "; levels of " + arch.name + ", outermost first: " + level_names(arch));
    }
    LevelMapping& lm = m.levels[l];
    read_factors(r, "temporal", problem, lm.temporal);
    read_order(r, problem, lm.order);
    read_factors(r, "spatial_x", problem, lm.spatial_x);
    read_factors(r, "spatial_y", problem, lm.spatial_y);
    r.finish();
    const std::pair<const char*, const DimArray*> slots[] = {
        {"temporal", &lm.temporal}, {"spatial_x", &lm.spatial_x}, {"spatial_y", &lm.spatial_y}};
    for (const auto& [key, factors] : slots) {
      for (int d = 0; d < kNumDims; ++d) {
        const int64_t f = (*factors)[d];
        // Compared by division so that no product is formed beyond the bound.
        if (f > problem.bound[d] / product[d]) {
          r.fail(std::string(key) + "." + problem.dim_name(d),
                 std::string("the factors of ") + problem.dim_name(d) + " down to level '" + name +
                     "' multiply to more than the layer's " + problem.dim_name(d) + " = " +
                     std::to_string(problem.bound[d]) + " (" + std::to_string(product[d]) + " x " +
                     std::to_string(f) + "; each loop's factors must multiply to its bound exactly)");
        }
        product[d] *= f;
      }
    }
  }
  return m;
}

}  // namespace loom
