#include "validate/device_match.h"

#include <cctype>
#include <set>

namespace loom::validate {

std::string gpu_model(const std::string& name) {
  static const std::set<std::string> vendor_words{"nvidia", "tesla", "geforce", "quadro", "titan", "rtx", "gtx"};
  std::string word;
  auto take = [&]() {
    std::string w = word;
    word.clear();
    return w.empty() || vendor_words.count(w) ? std::string() : w;
  };
  for (char ch : name + " ") {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (std::string w = take(); !w.empty()) {
      return w;
    }
  }
  return "";
}

bool same_gpu_model(const std::string& a, const std::string& b) {
  const std::string ma = gpu_model(a), mb = gpu_model(b);
  return !ma.empty() && ma == mb;
}

}  // namespace loom::validate
