// The points of a sweep's design space, numbered 0..size()-1 in mixed radix over the
// parameters (the last parameter varies fastest). A point's number is its identity
// everywhere: in results files, on --resume, across shards and in `loom merge`.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/architecture.h"
#include "sweep/sweep_spec.h"

namespace loom {

class DesignSpace {
 public:
  explicit DesignSpace(const SweepSpec& spec);

  int64_t size() const { return size_; }
  size_t dimensions() const { return radix_.size(); }
  int64_t values_of(size_t parameter) const { return radix_[parameter]; }

  std::vector<int64_t> digits(int64_t index) const;  // value index per parameter
  int64_t index_of(const std::vector<int64_t>& digits) const;

  Json params(int64_t index) const;       // {"<path>": value, ...}
  Json arch_json(int64_t index) const;    // the base with the point's values, named after them
  // Throws InputError naming the spec when a combination of values is invalid.
  Architecture architecture(int64_t index) const;

 private:
  const SweepSpec* spec_;
  std::vector<int64_t> radix_;
  int64_t size_ = 1;
};

}  // namespace loom
