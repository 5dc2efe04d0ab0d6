#include "config/value_parse.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace hw::config {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Java's Integer/Long.parseLong: optional sign, decimal digits, in range.
std::optional<int64_t> parse_integer(std::string_view s, int64_t lo, int64_t hi) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string copy(s);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    std::string_view item = s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    out.emplace_back(trim(item));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string join(const std::vector<std::string_view>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += v[i];
  }
  return out;
}

std::string number_text(int64_t v) { return std::to_string(v); }
std::string number_text(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// The rule check on a parsed, non-null value; empty string = satisfied.
std::string check_rule(const config_key& key, const config_value& v) {
  const rule& r = key.check;
  switch (r.what) {
    case rule::kind::none:
      return {};
    case rule::kind::range:
      if (auto* i = std::get_if<int64_t>(&v)) {
        if (r.min_int && *i < *r.min_int) return "Value must be at least " + number_text(*r.min_int);
        if (r.max_int && *i > *r.max_int) return "Value must be no more than " + number_text(*r.max_int);
      } else if (auto* d = std::get_if<double>(&v)) {
        if (r.min_double && !(*d >= *r.min_double)) return "Value must be at least " + number_text(*r.min_double);
        if (r.max_double && !(*d <= *r.max_double)) return "Value must be no more than " + number_text(*r.max_double);
      }
      return {};
    case rule::kind::one_of:
      if (auto* s = std::get_if<std::string>(&v)) {
        for (auto allowed : r.values)
          if (*s == allowed) return {};
        return "String must be one of: " + join(r.values);
      }
      return {};
    case rule::kind::non_empty:
      if (auto* s = std::get_if<std::string>(&v); s && s->empty()) return "String must be non-empty";
      return {};
    case rule::kind::list_one_of:
      if (auto* l = std::get_if<std::vector<std::string>>(&v)) {
        for (const auto& item : *l) {
          bool found = false;
          for (auto allowed : r.values) found = found || item == allowed;
          if (!found) return "String must be one of: " + join(r.values);
        }
      }
      return {};
  }
  return {};
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string invalid_value_message(const config_key& key, std::string_view value, std::string_view why) {
  std::string shown = key.type == value_type::password ? std::string("[hidden]") : std::string(value);
  std::string msg = "Invalid value " + shown + " for configuration " + std::string(key.name);
  if (!why.empty()) msg += ": " + std::string(why);
  return msg;
}

parse_result parse_value(const config_key& key, std::string_view text) {
  std::string_view t = trim(text);
  config_value v;
  auto not_a_number = [&] {
    return invalid_value_message(key, t, "Not a number of type " + std::string(type_name(key.type)));
  };
  switch (key.type) {
    case value_type::int16:
    case value_type::int32:
    case value_type::int64: {
      int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
      if (key.type == value_type::int16) lo = INT16_MIN, hi = INT16_MAX;
      if (key.type == value_type::int32) lo = INT32_MIN, hi = INT32_MAX;
      auto n = parse_integer(t, lo, hi);
      if (!n) return not_a_number();
      v = *n;
      break;
    }
    case value_type::float64: {
      auto d = parse_double(t);
      if (!d) return not_a_number();
      v = *d;
      break;
    }
    case value_type::boolean:
      if (iequals(t, "true")) v = true;
      else if (iequals(t, "false")) v = false;
      else return invalid_value_message(key, t, "Expected value to be either true or false");
      break;
    case value_type::string:
    case value_type::password:
    case value_type::class_name:
      v = std::string(t);
      break;
    case value_type::list:
      v = split_list(t);
      break;
  }
  std::string why = check_rule(key, v);
  if (!why.empty()) return invalid_value_message(key, t, why);
  return v;
}

std::string value_to_string(const config_value& v) {
  struct visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return number_text(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::string>& l) const {
      std::string out;
      for (size_t i = 0; i < l.size(); ++i) out += (i ? "," : "") + l[i];
      return out;
    }
  };
  return std::visit(visitor{}, v);
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::vector<std::string_view> csv(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string_view::npos) comma = s.size();
    std::string_view item = trim(s.substr(start, comma - start));
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

}  // namespace hw::config
