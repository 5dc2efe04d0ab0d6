#pragma once
// The description of one broker configuration key: its Kafka name, type,
// default, validation rule and a one-line summary. The table of known keys
// (broker_keys.cc) is plain constant data; nothing here owns state.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hw::config {

// Kafka's ConfigDef types. Integers of every width are held as int64_t; the
// type decides the accepted range when parsing.
enum class value_type { int16, int32, int64, float64, boolean, string, list, password, class_name };

std::string_view type_name(value_type t);  // Kafka's spelling: INT, LONG, ...

// A parsed value; monostate is Kafka's null (a key with no default).
using config_value =
    std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<std::string>>;

// What a value must satisfy beyond its type.
struct rule {
  enum class kind { none, range, one_of, non_empty, list_one_of };
  kind what = kind::none;
  // range: inclusive bounds on integers or doubles (unset = unbounded).
  std::optional<int64_t> min_int, max_int;
  std::optional<double> min_double, max_double;
  // one_of / list_one_of: the accepted strings (exact match).
  std::vector<std::string_view> values;

  static rule none() { return {}; }
  static rule at_least(int64_t min) { return rule{kind::range, min, std::nullopt, {}, {}, {}}; }
  static rule between(int64_t min, int64_t max) { return rule{kind::range, min, max, {}, {}, {}}; }
  static rule at_least_double(double min) { return rule{kind::range, {}, {}, min, std::nullopt, {}}; }
  static rule between_double(double min, double max) { return rule{kind::range, {}, {}, min, max, {}}; }
  static rule one_of(std::vector<std::string_view> v) { return rule{kind::one_of, {}, {}, {}, {}, std::move(v)}; }
  static rule list_one_of(std::vector<std::string_view> v) {
    return rule{kind::list_one_of, {}, {}, {}, {}, std::move(v)};
  }
  static rule non_empty() { return rule{kind::non_empty, {}, {}, {}, {}, {}}; }
};

struct config_key {
  std::string_view name;
  value_type type;
  // The default as it would be written in server.properties; nullopt = null.
  std::optional<std::string_view> default_value;
  rule check;
  std::string_view doc;
  // A default that depends on the machine (e.g. the number of cores); wins
  // over default_value when set.
  std::string (*computed_default)() = nullptr;

  std::optional<std::string> default_text() const {
    if (computed_default) return computed_default();
    if (default_value) return std::string(*default_value);
    return std::nullopt;
  }
};

// Every broker key Highwater knows, in a stable order.
std::span<const config_key> broker_config_keys();
const config_key* find_broker_key(std::string_view name);

}  // namespace hw::config
