#include "sim/text_file.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/error.h"
#include "sim/interrupt_guard.h"

namespace loom {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "is a directory; expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file (does it exist and is it readable?)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path, "", "reading the file failed");
  return buffer.str();
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_trimmed(std::string_view s, char separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(separator, start);
    fields.push_back(trim(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

std::string to_lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string with_commas(int64_t value) {
  const std::string digits = std::to_string(value < 0 ? -(value + 1) + uint64_t{1} : uint64_t(value));
  std::string out = value < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& f) { f << content; });
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  // Named per process, so two processes writing the same file never share a temporary; a
  // Ctrl-C is held off until the file is in place, so none is left behind (SIGKILL can).
  const std::string tmp = path + "." + std::to_string(::getpid()) + ".tmp";
  const DeferInterrupts hold;
  std::error_code ec;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw InputError(path, "--out", "cannot write this file (is the directory writable?)");
    try {
      write(f);
    } catch (...) {
      f.close();
      std::filesystem::remove(tmp, ec);
      throw;
    }
    f.close();
    if (!f) {
      std::filesystem::remove(tmp, ec);
      throw InputError(path, "--out", "writing failed (disk full?)");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw InputError(path, "--out", "cannot move the finished file into place: " + why);
  }
}

void make_output_dir(const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir)) {
    throw InputError(out_dir, "--out", "cannot create the output directory" + (ec ? ": " + ec.message() : ""));
  }
}

bool write_all(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace loom
