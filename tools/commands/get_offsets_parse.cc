#include <algorithm>
#include <charconv>

#include "tools/commands/get_offsets.h"

namespace hw::tools::get_offsets {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Kafka's TOPIC_PARTITION_PATTERN, ([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?,
// matched against one rule: the parts it captures (empty ones count as absent).
struct rule_parts {
  std::string topic, unique, low, high;
  bool has_range = false;
};

bool match_rule(std::string_view spec, rule_parts* out) {
  const auto colon = spec.find(':');
  out->topic = std::string(spec.substr(0, colon));
  if (out->topic.find(',') != std::string::npos) return false;
  if (colon == std::string_view::npos) return true;
  std::string_view rest = spec.substr(colon + 1);
  auto digits_only = [](std::string_view s) { return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }); };
  if (digits_only(rest)) {
    out->unique = std::string(rest);
    return true;
  }
  const auto dash = rest.find('-');
  if (dash == std::string_view::npos || !digits_only(rest.substr(0, dash)) || !digits_only(rest.substr(dash + 1)))
    return false;
  out->has_range = true;
  out->low = std::string(rest.substr(0, dash));
  out->high = std::string(rest.substr(dash + 1));
  return true;
}

// Integer.parseInt on the digits the pattern let through; too large a number
// fails as Java fails it (a NumberFormatException, which the tool does not
// expect and prints with its stack trace).
bool rule_number(const std::string& digits, int32_t* out, tool_error* error) {
  if (java_parse_int(digits, out)) return true;
  error->message = "For input string: \"" + digits + "\"";
  error->trace = "java.lang.NumberFormatException: " + error->message;
  return false;
}

}  // namespace

std::vector<std::string> java_split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      parts.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (parts.size() == 1) return parts;  // no separator: the text itself, even ""
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

bool java_parse_long(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  bool negative = text[0] == '-';
  std::string_view digits = (text[0] == '-' || text[0] == '+') ? text.substr(1) : text;
  if (!all_digits(digits)) return false;
  // Parsed as the negative value so that Long.MIN_VALUE fits.
  int64_t value = 0;
  for (char c : digits) {
    const int d = c - '0';
    if (value < (INT64_MIN + d) / 10) return false;
    value = value * 10 - d;
  }
  if (!negative) {
    if (value == INT64_MIN) return false;
    value = -value;
  }
  *out = value;
  return true;
}

bool java_parse_int(std::string_view text, int32_t* out) {
  int64_t v = 0;
  if (!java_parse_long(text, &v) || v < INT32_MIN || v > INT32_MAX) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

std::string java_trim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && static_cast<unsigned char>(text[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(text[e - 1]) <= ' ') --e;
  return std::string(text.substr(b, e - b));
}

bool parse_time(const std::string& text, int64_t* timestamp, tool_error* error) {
  static const std::pair<const char*, int64_t> names[] = {
      {"earliest", -2}, {"latest", -1}, {"max-timestamp", -3}, {"earliest-local", -4},
      {"latest-tiered", -5}, {"earliest-pending-upload", -6}};
  for (const auto& [name, value] : names) {
    if (text == name) {
      *timestamp = value;
      return true;
    }
  }
  if (java_parse_long(text, timestamp)) return true;
  error->message = "Malformed time argument " + text +
                   ". Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or "
                   "latest-tiered / -6 or earliest-pending-upload, or a specified long format timestamp";
  error->trace.clear();
  return false;
}

bool partition_rule::topic_allowed(const std::string& name) const {
  return !topic || std::regex_match(name, *topic);
}

bool partition_rule::allowed(const topic_partition& tp) const {
  if (!topic_allowed(tp.topic)) return false;
  switch (partitions) {
    case kind::unique:
      return tp.partition == low;
    case kind::range:
      return tp.partition >= low && tp.partition < high;
    case kind::set:
      return ids.empty() || ids.count(tp.partition) > 0;
  }
  return false;
}

bool partition_filter::topic_allowed(const std::string& topic) const {
  return std::any_of(rules.begin(), rules.end(), [&](const partition_rule& r) { return r.topic_allowed(topic); });
}

bool partition_filter::allowed(const topic_partition& tp) const {
  return std::any_of(rules.begin(), rules.end(), [&](const partition_rule& r) { return r.allowed(tp); });
}

bool topic_regex(const std::string& pattern, std::regex* out, tool_error* error) {
  std::string regex;
  for (char c : java_trim(pattern)) {
    if (c == ' ') continue;
    regex += c == ',' ? '|' : c;
  }
  const auto quote = [](char c) { return c == '"' || c == '\''; };
  while (!regex.empty() && quote(regex.front())) regex.erase(regex.begin());
  while (!regex.empty() && quote(regex.back())) regex.pop_back();
  try {
    *out = std::regex(regex, std::regex::ECMAScript);
    return true;
  } catch (const std::regex_error&) {
    error->message = regex + " is an invalid regex.";
    error->trace = "java.lang.RuntimeException: " + error->message;
    return false;
  }
}

bool parse_topic_partitions(const std::string& spec, partition_filter* out, tool_error* error) {
  out->rules.clear();
  for (const auto& rule_spec : java_split(spec, ',')) {
    rule_parts parts;
    if (!match_rule(rule_spec, &parts)) {
      error->message = "org.apache.kafka.tools.TerseException: Invalid rule specification: " + rule_spec;
      error->trace = "java.lang.RuntimeException: " + error->message;
      return false;
    }
    partition_rule rule;
    if (!parts.topic.empty()) {
      rule.topic.emplace();
      if (!topic_regex(parts.topic, &*rule.topic, error)) return false;
    }
    if (!parts.unique.empty()) {
      rule.partitions = partition_rule::kind::unique;
      if (!rule_number(parts.unique, &rule.low, error)) return false;
    } else {
      rule.partitions = partition_rule::kind::range;
      if (!parts.low.empty() && !rule_number(parts.low, &rule.low, error)) return false;
      if (!parts.high.empty() && !rule_number(parts.high, &rule.high, error)) return false;
    }
    out->rules.push_back(std::move(rule));
  }
  return true;
}

bool parse_topic_and_partitions(const std::optional<std::string>& topic, const std::optional<std::string>& partitions,
                                partition_filter* out, tool_error* error) {
  partition_rule rule;
  rule.partitions = partition_rule::kind::set;
  if (partitions && !partitions->empty()) {
    for (const auto& id : java_split(*partitions, ',')) {
      int32_t p = 0;
      if (!java_parse_int(id, &p)) {
        error->message = "--partitions expects a comma separated list of numeric partition ids, but received: " +
                         *partitions;
        error->trace.clear();
        return false;
      }
      rule.ids.insert(p);
    }
  }
  rule.topic.emplace();
  if (!topic_regex(topic.value_or(".*"), &*rule.topic, error)) return false;
  out->rules = {std::move(rule)};
  return true;
}

std::string validate_bootstrap_server(const std::string& servers) {
  if (java_trim(servers).empty()) return "Error while validating the bootstrap address\n";
  std::vector<std::string> entries =
      servers.find(',') != std::string::npos ? java_split(servers, ',') : std::vector<std::string>{servers};
  size_t valid = 0;
  for (const auto& entry : entries) {
    // Utils.getPort: the entry ends in ':' and digits, which must fit an int.
    const auto colon = entry.rfind(':');
    if (colon == std::string::npos || !all_digits(std::string_view(entry).substr(colon + 1))) continue;
    int32_t port = 0;
    if (!java_parse_int(entry.substr(colon + 1), &port)) return "For input string: \"" + entry.substr(colon + 1) + "\"";
    ++valid;
  }
  if (valid == 0 || valid != entries.size()) return "Please provide valid host:port like host1:9091,host2:9092\n";
  return "";
}

std::vector<std::string> offset_lines(const std::vector<std::pair<topic_partition, int64_t>>& offsets) {
  std::vector<std::pair<std::string, std::string>> keyed;
  for (const auto& [tp, offset] : offsets)
    keyed.emplace_back(tp.str(), tp.topic + ":" + std::to_string(tp.partition) + ":" + std::to_string(offset));
  std::sort(keyed.begin(), keyed.end());
  keyed.erase(std::unique(keyed.begin(), keyed.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              keyed.end());
  std::vector<std::string> lines;
  for (auto& k : keyed) lines.push_back(std::move(k.second));
  return lines;
}

}  // namespace hw::tools::get_offsets
