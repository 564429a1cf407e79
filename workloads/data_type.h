// Numeric data types of layer operands; width in bits drives sizes and MAC energy.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace loom {

enum class DataType { fp32, fp16, bf16, int16, int8, int4, int1 };

int bits_of(DataType t);
const char* name_of(DataType t);
std::optional<DataType> parse_data_type(const std::string& name);
// Every data type, in one place: loaders iterate this list.
inline constexpr std::array kAllDataTypes = {DataType::fp32, DataType::fp16, DataType::bf16, DataType::int16,
                                             DataType::int8, DataType::int4, DataType::int1};
inline constexpr const char* kDataTypeNames = "fp32|fp16|bf16|int16|int8|int4|int1";

// Bytes occupied by `elements` words of `bits` each, rounded up to whole bytes.
inline int64_t bytes_for(int64_t elements, int bits) { return (elements * bits + 7) / 8; }

}  // namespace loom
