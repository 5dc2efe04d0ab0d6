// Kafka's DefaultMessageFormatter
// (org.apache.kafka.tools.consumer.DefaultMessageFormatter): what
// kafka-console-consumer.sh prints for each record.

#include <cctype>

#include "tools/commands/console.h"

namespace hw::tools::console {
namespace {

constexpr const char* k_string_deserializer = "org.apache.kafka.common.serialization.StringDeserializer";

bool java_true(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  if (s.size() != 4) return false;
  for (size_t i = 0; i < 4; ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != "true"[i]) return false;
  return true;
}

// A deserializer property: absent or Kafka's StringDeserializer.
bool deserializer(const properties& props, const char* key, bool* as_string, std::string* error) {
  auto it = props.find(key);
  if (it == props.end()) return true;
  if (it->second != k_string_deserializer) {
    *error = std::string(key) + "=" + it->second + " is not supported by the native tool (only " +
             k_string_deserializer + ")";
    return false;
  }
  *as_string = true;
  return true;
}

// The bytes printed for a key, value or header value: the null literal
// for a null, then through the deserializer if one is set.
std::string field(const formatter_settings& s, const std::optional<std::string>& bytes, bool as_string) {
  const std::string& raw = bytes ? *bytes : s.null_literal;
  return as_string ? java_utf8(raw) : raw;
}

}  // namespace

bool configure_formatter(const properties& props, formatter_settings* out, std::string* error) {
  formatter_settings s;
  const std::pair<const char*, bool*> flags[] = {
      {"print.timestamp", &s.print_timestamp}, {"print.key", &s.print_key},
      {"print.offset", &s.print_offset},       {"print.delivery", &s.print_delivery},
      {"print.epoch", &s.print_epoch},         {"print.partition", &s.print_partition},
      {"print.headers", &s.print_headers},     {"print.value", &s.print_value},
  };
  for (auto [key, slot] : flags)
    if (auto it = props.find(key); it != props.end()) *slot = java_true(it->second);
  const std::pair<const char*, std::string*> separators[] = {
      {"key.separator", &s.key_separator},
      {"line.separator", &s.line_separator},
      {"headers.separator", &s.headers_separator},
      {"null.literal", &s.null_literal},
  };
  for (auto [key, slot] : separators)
    if (auto it = props.find(key); it != props.end()) *slot = it->second;
  if (!deserializer(props, "key.deserializer", &s.key_as_string, error) ||
      !deserializer(props, "value.deserializer", &s.value_as_string, error) ||
      !deserializer(props, "headers.deserializer", &s.headers_as_string, error))
    return false;
  *out = std::move(s);
  return true;
}

std::string format_record(const formatter_settings& s, const consumed_record& r) {
  std::string out;
  // After each column: the key separator if any column follows, else the line separator.
  auto separator = [&](bool more) { out += more ? s.key_separator : s.line_separator; };
  const bool after_headers = s.print_key || s.print_value;
  const bool after_epoch = s.print_headers || after_headers;
  const bool after_delivery = s.print_epoch || after_epoch;
  const bool after_offset = s.print_delivery || after_delivery;
  const bool after_partition = s.print_offset || after_offset;
  const bool after_timestamp = s.print_partition || after_partition;
  if (s.print_timestamp) {
    switch (r.ts_type) {
      case timestamp_type::create_time: out += "CreateTime:" + std::to_string(r.timestamp); break;
      case timestamp_type::log_append_time: out += "LogAppendTime:" + std::to_string(r.timestamp); break;
      case timestamp_type::none: out += "NO_TIMESTAMP"; break;
    }
    separator(after_timestamp);
  }
  if (s.print_partition) {
    out += "Partition:" + std::to_string(r.partition);
    separator(after_partition);
  }
  if (s.print_offset) {
    out += "Offset:" + std::to_string(r.offset);
    separator(after_offset);
  }
  // The console consumer hands the formatter records without a delivery
  // count or leader epoch, so Kafka prints these two as not present.
  if (s.print_delivery) {
    out += "Delivery:NOT_PRESENT";
    separator(after_delivery);
  }
  if (s.print_epoch) {
    out += "Epoch:NOT_PRESENT";
    separator(after_epoch);
  }
  if (s.print_headers) {
    if (r.headers.empty()) out += "NO_HEADERS";
    for (size_t i = 0; i < r.headers.size(); ++i) {
      out += r.headers[i].key + ":" + field(s, r.headers[i].value, s.headers_as_string);
      if (i + 1 < r.headers.size()) out += s.headers_separator;
    }
    separator(after_headers);
  }
  if (s.print_key) {
    out += field(s, r.key, s.key_as_string);
    separator(s.print_value);
  }
  if (s.print_value) {
    out += field(s, r.value, s.value_as_string);
    out += s.line_separator;
  }
  return out;
}

}  // namespace hw::tools::console
