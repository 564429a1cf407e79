// Strict reading of JSON inputs. Every value is read through a JsonReader, which knows
// the file and the JSON path it came from, validates the value against a stated rule and,
// at finish(), rejects any key that nobody asked for (a misspelled key is an error, never
// silently ignored).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loom {

using Json = nlohmann::json;

// Parses a JSON file; errors name the file and the line/column of the syntax error.
Json load_json_file(const std::string& path);
// The same for JSON text already in memory; `file` names it in errors.
Json parse_json_text(const std::string& text, const std::string& file);

class JsonReader {
 public:
  // `object` must outlive the reader. `path` is the JSON path of `object` ("" at the root).
  JsonReader(const Json& object, std::string file, std::string path);

  const std::string& file() const { return file_; }
  std::string field(const std::string& key) const;  // "path.key" for error messages
  bool has(const std::string& key) const;

  // Integers must be whole numbers (a JSON 1.5 is rejected, 2.0 accepted).
  // whole_number is that rule for a value read raw (an array entry): nullopt if it breaks it.
  static std::optional<int64_t> whole_number(const Json& v);
  int64_t integer(const std::string& key);
  int64_t integer(const std::string& key, int64_t fallback);
  int64_t positive_integer(const std::string& key);
  int64_t positive_integer(const std::string& key, int64_t fallback);
  int64_t non_negative_integer(const std::string& key, int64_t fallback);

  double number(const std::string& key);
  double number(const std::string& key, double fallback);
  double positive_number(const std::string& key);
  double positive_number(const std::string& key, double fallback);

  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key);
  std::string string(const std::string& key, const std::string& fallback);
  // A string that must be one of `allowed`.
  std::string choice(const std::string& key, std::initializer_list<const char*> allowed);
  std::string choice(const std::string& key, std::initializer_list<const char*> allowed,
                     const std::string& fallback);

  // An integer or a [h, w] pair of integers, each >= min_value; a scalar fills both.
  std::pair<int64_t, int64_t> integer_pair(const std::string& key, int64_t min_value,
                                           std::pair<int64_t, int64_t> fallback);
  std::pair<int64_t, int64_t> integer_pair(const std::string& key, int64_t min_value);

  // Raw access for nested objects and arrays; marks the key as consumed.
  const Json& value(const std::string& key);
  const Json* optional_value(const std::string& key);
  JsonReader object(const std::string& key);
  std::vector<JsonReader> array_of_objects(const std::string& key);

  // Throws InputError naming the first key that was never read.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& expected) const;

 private:
  const Json& require(const std::string& key);
  int64_t as_integer(const Json& v, const std::string& key) const;

  const Json* object_;
  std::string file_;
  std::string path_;
  std::set<std::string> consumed_;
  mutable std::set<std::string> asked_;  // every key looked up, for the 'known keys' hint
};

}  // namespace loom
