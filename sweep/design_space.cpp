#include "sweep/design_space.h"

#include "sim/error.h"

namespace loom {

DesignSpace::DesignSpace(const SweepSpec& spec) : spec_(&spec) {
  for (const ParameterAxis& a : spec.parameters) {
    radix_.push_back(static_cast<int64_t>(a.values.size()));
    size_ *= radix_.back();
  }
}

std::vector<int64_t> DesignSpace::digits(int64_t index) const {
  std::vector<int64_t> d(radix_.size());
  for (size_t i = radix_.size(); i-- > 0;) {
    d[i] = index % radix_[i];
    index /= radix_[i];
  }
  return d;
}

int64_t DesignSpace::index_of(const std::vector<int64_t>& d) const {
  int64_t index = 0;
  for (size_t i = 0; i < radix_.size(); ++i) index = index * radix_[i] + d[i];
  return index;
}

Json DesignSpace::params(int64_t index) const {
  const std::vector<int64_t> d = digits(index);
  Json p = Json::object();
  for (size_t i = 0; i < d.size(); ++i) p[spec_->parameters[i].path] = spec_->parameters[i].values[d[i]];
  return p;
}

Json DesignSpace::arch_json(int64_t index) const {
  const std::vector<int64_t> d = digits(index);
  Json arch = spec_->base;
  std::string suffix;
  for (size_t i = 0; i < d.size(); ++i) {
    const ParameterAxis& axis = spec_->parameters[i];
    *parameter_slot(arch, axis.path, nullptr) = axis.values[d[i]];  // the path was checked at load
    const std::string leaf = axis.path.substr(axis.path.rfind('.') + 1);
    const Json& v = axis.values[d[i]];
    suffix += (suffix.empty() ? "" : ",") + leaf + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  const std::string base_name = arch.contains("name") && arch["name"].is_string() ? arch["name"].get<std::string>()
                                                                                   : spec_->name;
  arch["name"] = base_name + "[" + suffix + "]";
  return arch;
}

Architecture DesignSpace::architecture(int64_t index) const {
  try {
    return parse_architecture(arch_json(index), spec_->base_file, spec_->base_dir);
  } catch (const InputError& e) {
    throw InputError(spec_->file, "point " + std::to_string(index) + " " + params(index).dump(),
                     "a valid architecture; " + e.field() + ": " + e.expected());
  }
}

}  // namespace loom
