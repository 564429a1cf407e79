#include "sim/json_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "sim/error.h"
#include "sim/text_file.h"

namespace loom {

Json load_json_file(const std::string& path) { return parse_json_text(read_text_file(path), path); }

namespace {

// "line L column C" of byte `offset` of `text`, for humans.
std::string line_column(const std::string& text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < std::min(offset, text.size()); ++i) {
    if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
  }
  return "line " + std::to_string(line) + " column " + std::to_string(col);
}

// Where the number token `literal` first stands outside a string, or npos. That is the one
// the parser could not represent: an earlier copy of it would have failed first. A token is
// the longest number there, so it follows no number character and is not followed by one
// that would lengthen it (after "1e400", a '.' ends the token; after "1000", it would not).
size_t find_number_token(const std::string& text, const std::string& literal) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  const bool exponent = literal.find_first_of("eE") != std::string::npos;
  const bool fraction = literal.find('.') != std::string::npos;
  const auto in_number = [&](char c) { return digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'; };
  const auto extends = [&](char c) {
    return digit(c) || (!exponent && (c == 'e' || c == 'E')) || (!exponent && !fraction && c == '.');
  };
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (in_string) {
      if (text[i] == '\\') ++i;
      else if (text[i] == '"') in_string = false;
    } else if (text[i] == '"') {
      in_string = true;
    } else if (!literal.empty() && text.compare(i, literal.size(), literal) == 0 && (i == 0 || !in_number(text[i - 1])) &&
               (i + literal.size() == text.size() || !extends(text[i + literal.size()]))) {
      return i;
    }
  }
  return std::string::npos;
}

}  // namespace

Json parse_json_text(const std::string& text, const std::string& path) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into line:column for humans.
    throw InputError(path, line_column(text, e.byte == 0 ? 0 : e.byte - 1),
                     "malformed JSON (" + std::string(e.what()).substr(std::string(e.what()).find(':') + 2) + ")");
  } catch (const Json::out_of_range& e) {
    // A number beyond a double (1e400): nlohmann throws out_of_range with no position, only
    // "number overflow parsing '<token>'"; find the token to name its line.
    const std::string what = e.what();
    const size_t open = what.find('\''), close = what.rfind('\'');
    const std::string token = open < close ? what.substr(open + 1, close - open - 1) : "";
    const size_t at = find_number_token(text, token);
    throw InputError(path, at == std::string::npos ? "(a number)" : line_column(text, at),
                     "a number within the range of a double (magnitude up to 1.8e308), got " +
                         (token.empty() ? std::string("one beyond it") : token));
  }
}

JsonReader::JsonReader(const Json& object, std::string file, std::string path)
    : object_(&object), file_(std::move(file)), path_(std::move(path)) {
  if (!object.is_object()) {
    throw InputError(file_, path_.empty() ? "(top level)" : path_, "expected a JSON object");
  }
}

std::string JsonReader::field(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool JsonReader::has(const std::string& key) const {
  asked_.insert(key);
  return object_->contains(key);
}

void JsonReader::fail(const std::string& key, const std::string& expected) const {
  throw InputError(file_, field(key), expected);
}

namespace {
// Levenshtein distance, for "did you mean" hints on misspelled keys.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}
}  // namespace

const Json& JsonReader::require(const std::string& key) {
  asked_.insert(key);
  auto it = object_->find(key);
  if (it == object_->end()) {
    for (auto other = object_->begin(); other != object_->end(); ++other) {
      if (!asked_.count(other.key()) && edit_distance(other.key(), key) <= 2) {
        fail(key, "missing required field (found unknown key '" + other.key() + "': misspelled?)");
      }
    }
    fail(key, "missing required field");
  }
  consumed_.insert(key);
  return *it;
}

const Json& JsonReader::value(const std::string& key) { return require(key); }

const Json* JsonReader::optional_value(const std::string& key) {
  asked_.insert(key);
  auto it = object_->find(key);
  if (it == object_->end()) return nullptr;
  consumed_.insert(key);
  return &*it;
}

std::optional<int64_t> JsonReader::whole_number(const Json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

int64_t JsonReader::as_integer(const Json& v, const std::string& key) const {
  if (const std::optional<int64_t> n = whole_number(v)) return *n;
  fail(key, "expected a whole number, got " + v.dump());
}

int64_t JsonReader::integer(const std::string& key) { return as_integer(require(key), key); }

int64_t JsonReader::integer(const std::string& key, int64_t fallback) {
  const Json* v = optional_value(key);
  return v ? as_integer(*v, key) : fallback;
}

int64_t JsonReader::positive_integer(const std::string& key) {
  const int64_t v = integer(key);
  if (v <= 0) fail(key, "expected a positive whole number, got " + std::to_string(v));
  return v;
}

int64_t JsonReader::positive_integer(const std::string& key, int64_t fallback) {
  if (!has(key)) return fallback;
  return positive_integer(key);
}

int64_t JsonReader::non_negative_integer(const std::string& key, int64_t fallback) {
  const int64_t v = integer(key, fallback);
  if (v < 0) fail(key, "expected a whole number >= 0, got " + std::to_string(v));
  return v;
}

double JsonReader::number(const std::string& key) {
  const Json& v = require(key);
  if (!v.is_number()) fail(key, "expected a number, got " + v.dump());
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(key, "expected a finite number");
  return d;
}

double JsonReader::number(const std::string& key, double fallback) {
  return has(key) ? number(key) : fallback;
}

double JsonReader::positive_number(const std::string& key) {
  const double d = number(key);
  if (!(d > 0)) fail(key, "expected a positive number, got " + Json(d).dump());
  return d;
}

double JsonReader::positive_number(const std::string& key, double fallback) {
  return has(key) ? positive_number(key) : fallback;
}

bool JsonReader::boolean(const std::string& key, bool fallback) {
  const Json* v = optional_value(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(key, "expected true or false, got " + v->dump());
  return v->get<bool>();
}

std::string JsonReader::string(const std::string& key) {
  const Json& v = require(key);
  if (!v.is_string()) fail(key, "expected a string, got " + v.dump());
  return v.get<std::string>();
}

std::string JsonReader::string(const std::string& key, const std::string& fallback) {
  return has(key) ? string(key) : fallback;
}

std::string JsonReader::choice(const std::string& key, std::initializer_list<const char*> allowed) {
  const std::string s = string(key);
  std::string list;
  for (const char* a : allowed) {
    if (s == a) return s;
    list += list.empty() ? "" : "|";
    list += a;
  }
  fail(key, "expected one of " + list + ", got \"" + s + "\"");
}

std::string JsonReader::choice(const std::string& key, std::initializer_list<const char*> allowed,
                               const std::string& fallback) {
  return has(key) ? choice(key, allowed) : fallback;
}

std::pair<int64_t, int64_t> JsonReader::integer_pair(const std::string& key, int64_t min_value) {
  const Json& v = require(key);
  const std::string rule = "expected a whole number >= " + std::to_string(min_value) +
                           " or a pair [h, w] of them, got " + v.dump();
  std::pair<int64_t, int64_t> out;
  if (v.is_array()) {
    if (v.size() != 2) fail(key, rule);
    out = {as_integer(v[0], key), as_integer(v[1], key)};
  } else if (v.is_number()) {
    const int64_t x = as_integer(v, key);
    out = {x, x};
  } else {
    fail(key, rule);
  }
  if (out.first < min_value || out.second < min_value) fail(key, rule);
  return out;
}

std::pair<int64_t, int64_t> JsonReader::integer_pair(const std::string& key, int64_t min_value,
                                                     std::pair<int64_t, int64_t> fallback) {
  return has(key) ? integer_pair(key, min_value) : fallback;
}

JsonReader JsonReader::object(const std::string& key) {
  const Json& v = require(key);
  if (!v.is_object()) fail(key, "expected a JSON object, got " + v.dump().substr(0, 40));
  return JsonReader(v, file_, field(key));
}

std::vector<JsonReader> JsonReader::array_of_objects(const std::string& key) {
  const Json& v = require(key);
  if (!v.is_array()) fail(key, "expected a JSON array of objects");
  std::vector<JsonReader> out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string item = field(key) + "[" + std::to_string(i) + "]";
    if (!v[i].is_object()) throw InputError(file_, item, "expected a JSON object");
    out.emplace_back(v[i], file_, item);
  }
  return out;
}

void JsonReader::finish() const {
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    if (!consumed_.count(it.key())) {
      std::string known;
      for (const auto& k : asked_) known += (known.empty() ? "" : ", ") + k;
      fail(it.key(), "unknown key (known keys here: " + (known.empty() ? std::string("none") : known) +
                         "; see docs/)");
    }
  }
}

}  // namespace loom
