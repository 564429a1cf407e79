// SCALE-Sim topology CSV importer: users bring SCALE-Sim's network files unchanged.
//
// Two formats, told apart by the header (the first non-blank line):
//   conv  "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
//          Num Filter, Strides,"   (any header containing "IFMAP")
//         rows: name, H, W, R, S, C, K, stride[, stride_w]   (9th column: stride width,
//         the 8th is then the stride height)
//   gemm  "Layer, M, N, K,"        (exactly layer/M/N/K, ignoring empty trailing cells)
//         rows: name, M, N, K
//
// Conventions taken from SCALE-Sim (scalesim/topology_utils.py):
//   * Rows usually end with a comma; SCALE-Sim drops whatever follows the last comma. Here
//     empty trailing cells are ignored, a row without the trailing comma is accepted too,
//     and text from a '#' to the end of the line is a comment (SCALE-Sim's own sample
//     files use "...,1,#dw").
//   * Blank lines, and rows whose cells are all empty, are skipped. \r\n line ends are fine.
//   * IFMAP height/width are the already padded input. SCALE-Sim's output size is
//     ceil((H - R + S) / S) = ceil((H - R) / S) + 1: when S does not divide H - R, it keeps
//     a last, partial window. loom's formula is floor((H + 2P - R) / S) + 1, so the row maps
//     to pad 0 when S divides H - R and otherwise to the smallest symmetric padding that
//     gives SCALE-Sim's output size. Either way out_h/out_w, the GEMM view and the MACs
//     equal SCALE-Sim's (ofmap_h * ofmap_w * R * S * C * K); in_h/in_w stay H and W, so
//     the ifmap element count is unchanged too.
//   * A layer whose name contains "DP" (case-sensitive, as in SCALE-Sim) is depthwise.
//     SCALE-Sim splits it into C layers of one channel each, each keeping K filters. loom
//     maps it to one grouped convolution: groups = in_channels = C, out_channels = C * K
//     (= C for the usual K = 1). Each group is exactly one of SCALE-Sim's per-channel
//     layers (m = ofmap pixels, n = K, k = R * S), so the MACs and the per-channel GEMMs
//     are the same.
//   * GEMM rows: SCALE-Sim runs them as an M x K ifmap against N filters of 1 x K, i.e.
//     C[M][N] = A[M][K] * B[K][N]; loom maps them to a gemm layer m, n, k.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/error.h"
#include "sim/text_file.h"
#include "workloads/network.h"

namespace loom {

namespace {

constexpr int64_t kMaxValue = 2147483647;  // keeps every derived product well inside int64

constexpr const char* kConvHeader =
    "'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
    "Strides,' (convolutions; an optional 9th column is the stride width)";
constexpr const char* kGemmHeader = "'Layer, M, N, K,' (GEMMs)";

struct Row {
  int line = 0;                    // 1-based
  std::string text;                // without the comment and the line end
  std::vector<std::string> cells;  // trimmed, empty trailing cells dropped
};

// Splits into lines (\n, \r\n), strips a UTF-8 byte-order mark and '#' comments, and
// splits each line into trimmed cells. Rows with no non-empty cell are dropped.
std::vector<Row> split_rows(const std::string& text) {
  std::vector<Row> rows;
  size_t pos = 0;
  int line_no = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) pos = 3;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    Row row;
    row.line = line_no;
    row.text = trim(line);
    row.cells = split_trimmed(line, ',');
    while (!row.cells.empty() && row.cells.back().empty()) row.cells.pop_back();
    if (!row.cells.empty()) rows.push_back(std::move(row));
    if (end == text.size()) break;
  }
  return rows;
}

std::string at_line(int line) { return "line " + std::to_string(line); }
std::string at_cell(int line, const std::string& column) {
  return at_line(line) + ", column '" + column + "'";
}

// A positive whole number (Python int() style: optional '+', digits only).
int64_t positive_cell(const Row& row, size_t index, const std::string& column,
                      const std::string& file) {
  const std::string& cell = row.cells[index];
  std::string_view digits(cell);
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  int64_t value = 0;
  const char* first = digits.data();
  const char* last = digits.data() + digits.size();
  bool negative = false;
  if (!digits.empty() && digits.front() == '-') {
    negative = true;
    ++first;
  }
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (digits.empty() || first == last || ptr != last ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    throw InputError(file, at_cell(row.line, column),
                     "expected a positive whole number, got '" + cell + "'");
  }
  if (negative || value == 0) {
    throw InputError(file, at_cell(row.line, column),
                     "expected a positive whole number (> 0), got '" + cell + "'");
  }
  if (ec == std::errc::result_out_of_range || value > kMaxValue) {
    throw InputError(file, at_cell(row.line, column),
                     "expected a whole number no larger than " + std::to_string(kMaxValue) +
                         ", got '" + cell + "'");
  }
  return value;
}

bool is_gemm_header(const Row& header) {
  if (header.cells.size() != 4) return false;
  const std::string first = to_lower(header.cells[0]);
  return (first == "layer" || first == "layer name" || first == "layer_name" || first == "name") &&
         to_lower(header.cells[1]) == "m" && to_lower(header.cells[2]) == "n" &&
         to_lower(header.cells[3]) == "k";
}

// Smallest per-side padding P with floor((H + 2P - R) / S) + 1 == ceil((H - R) / S) + 1.
int64_t scalesim_pad(int64_t in, int64_t kernel, int64_t stride) {
  const int64_t rem = (in - kernel) % stride;
  if (rem == 0) return 0;
  return (stride - rem + 1) / 2;  // 2P >= S - rem, and 2P <= S - rem + 1 < 2S - rem
}

Layer conv_layer(const Row& row, const std::string& file) {
  const size_t n = row.cells.size();
  if (n != 8 && n != 9) {
    throw InputError(file, at_line(row.line),
                     "expected 8 cells (Layer name, IFMAP Height, IFMAP Width, Filter Height, "
                     "Filter Width, Channels, Num Filter, Strides) or 9 (the last two being "
                     "Stride Height and Stride Width); got " +
                         std::to_string(n) + " in '" + row.text + "'");
  }
  Layer l;
  l.kind = LayerKind::conv2d;
  l.name = row.cells[0];
  if (l.name.empty()) {
    throw InputError(file, at_cell(row.line, "Layer name"), "expected a non-empty layer name");
  }
  const int64_t h = positive_cell(row, 1, "IFMAP Height", file);
  const int64_t w = positive_cell(row, 2, "IFMAP Width", file);
  const int64_t r = positive_cell(row, 3, "Filter Height", file);
  const int64_t s = positive_cell(row, 4, "Filter Width", file);
  const int64_t c = positive_cell(row, 5, "Channels", file);
  const int64_t k = positive_cell(row, 6, "Num Filter", file);
  const int64_t stride_h = positive_cell(row, 7, n == 9 ? "Stride Height" : "Strides", file);
  const int64_t stride_w = n == 9 ? positive_cell(row, 8, "Stride Width", file) : stride_h;
  if (r > h) {
    throw InputError(file, at_cell(row.line, "Filter Height"),
                     "expected a filter height no larger than the IFMAP Height (" +
                         std::to_string(h) + "), got " + std::to_string(r));
  }
  if (s > w) {
    throw InputError(file, at_cell(row.line, "Filter Width"),
                     "expected a filter width no larger than the IFMAP Width (" +
                         std::to_string(w) + "), got " + std::to_string(s));
  }
  Conv2d& cv = l.conv;
  cv.in_h = h;
  cv.in_w = w;
  cv.kernel_h = r;
  cv.kernel_w = s;
  cv.stride_h = stride_h;
  cv.stride_w = stride_w;
  cv.pad_h = scalesim_pad(h, r, stride_h);
  cv.pad_w = scalesim_pad(w, s, stride_w);
  cv.in_channels = c;
  if (l.name.find("DP") != std::string::npos) {  // SCALE-Sim's depthwise marker
    cv.groups = c;
    cv.out_channels = c * k;
  } else {
    cv.groups = 1;
    cv.out_channels = k;
  }
  return l;
}

Layer gemm_layer(const Row& row, const std::string& file) {
  if (row.cells.size() != 4) {
    throw InputError(file, at_line(row.line),
                     "expected 4 cells (Layer, M, N, K); got " + std::to_string(row.cells.size()) +
                         " in '" + row.text + "'");
  }
  Layer l;
  l.kind = LayerKind::gemm;
  l.name = row.cells[0];
  if (l.name.empty()) {
    throw InputError(file, at_cell(row.line, "Layer"), "expected a non-empty layer name");
  }
  l.gemm.m = positive_cell(row, 1, "M", file);
  l.gemm.n = positive_cell(row, 2, "N", file);
  l.gemm.k = positive_cell(row, 3, "K", file);
  return l;
}

}  // namespace

Network parse_scalesim_csv(const std::string& text, const std::string& file) {
  const std::vector<Row> rows = split_rows(text);
  if (rows.empty()) {
    throw InputError(file, "line 1",
                     std::string("expected a SCALE-Sim topology header, either ") + kConvHeader +
                         " or " + kGemmHeader + "; the file is empty");
  }
  const Row& header = rows.front();
  const bool conv = to_lower(header.text).find("ifmap") != std::string::npos;
  if (!conv && !is_gemm_header(header)) {
    throw InputError(file, at_line(header.line),
                     std::string("expected a SCALE-Sim topology header, either ") + kConvHeader +
                         " or " + kGemmHeader + "; got '" + header.text + "'");
  }

  Network net;
  net.source_file = file;
  net.name = std::filesystem::path(file).stem().string();
  if (net.name.empty()) net.name = "scalesim_topology";
  net.source = "SCALE-Sim topology CSV " + file;
  net.batch = 1;

  std::map<std::string, int> first_line;  // layer name -> line it was defined on
  for (size_t i = 1; i < rows.size(); ++i) {
    const Row& row = rows[i];
    Layer layer = conv ? conv_layer(row, file) : gemm_layer(row, file);
    const auto [it, inserted] = first_line.emplace(layer.name, row.line);
    if (!inserted) {
      throw InputError(file, at_cell(row.line, conv ? "Layer name" : "Layer"),
                       "expected a unique layer name; '" + layer.name + "' is already used on line " +
                           std::to_string(it->second));
    }
    std::string field;
    const std::string rule = shape_error(layer, &field);
    if (!rule.empty()) {
      throw InputError(file, at_line(row.line), "layer '" + layer.name + "' (" + field + "): " + rule);
    }
    net.layers.push_back(std::move(layer));
  }
  if (net.layers.empty()) {
    throw InputError(file, "layers",
                     "expected at least one layer row after the header on line " +
                         std::to_string(header.line) + "; the file has none");
  }
  if (const std::string rule = network_size_error(net); !rule.empty()) throw InputError(file, "layers", rule);
  return net;
}

}  // namespace loom
