#include "workloads/data_type.h"

namespace loom {

int bits_of(DataType t) {
  switch (t) {
    case DataType::fp32: return 32;
    case DataType::fp16: return 16;
    case DataType::bf16: return 16;
    case DataType::int16: return 16;
    case DataType::int8: return 8;
    case DataType::int4: return 4;
    case DataType::int1: return 1;
  }
  return 0;
}

const char* name_of(DataType t) {
  switch (t) {
    case DataType::fp32: return "fp32";
    case DataType::fp16: return "fp16";
    case DataType::bf16: return "bf16";
    case DataType::int16: return "int16";
    case DataType::int8: return "int8";
    case DataType::int4: return "int4";
    case DataType::int1: return "int1";
  }
  return "?";
}

std::optional<DataType> parse_data_type(const std::string& name) {
  for (DataType t : kAllDataTypes) {
    if (name == name_of(t)) return t;
  }
  return std::nullopt;
}

}  // namespace loom
