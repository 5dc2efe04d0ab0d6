// kafka-configs.sh: --add-config's syntax and the lines --describe prints
// (configs.h).

#include <algorithm>

#include "tools/commands/configs.h"
#include "tools/commands/java.h"

namespace hw::tools::configs {
namespace {

// Kafka splits on ',' and '=' followed by "(?=[^\]]*(?:\[|$))": the next
// bracket after the separator is an opening one, or there is none left.
bool outside_brackets(std::string_view text, size_t after) {
  for (size_t i = after; i < text.size(); ++i) {
    if (text[i] == '[') return true;
    if (text[i] == ']') return false;
  }
  return true;
}

// String.split on the separator where it is outside brackets; limit 0
// drops trailing empty strings, limit -1 keeps them.
std::vector<std::string> split_outside_brackets(std::string_view text, char separator, bool keep_trailing) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == separator && outside_brackets(text, i + 1)) {
      parts.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.emplace_back(text.substr(start));
  if (!keep_trailing) {
    while (parts.size() > 1 && parts.back().empty()) parts.pop_back();
    if (parts.size() == 1 && parts.front().empty() && !text.empty()) parts.clear();
  }
  return parts;
}

bool key_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '$' || c == '.' || c == '_' || c == '-';
}

std::string without_brackets(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != '[' && c != ']') out += c;
  return out;
}

}  // namespace

void set_property(properties* props, const std::string& key, const std::string& value) {
  for (auto& [k, v] : *props) {
    if (k == key) {
      v = value;
      return;
    }
  }
  props->emplace_back(key, value);
}

bool parse_add_config(const std::string& text, properties* props, std::string* error) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& item : split_outside_brackets(text, ',', false)) {
    auto kv = split_outside_brackets(item, '=', true);
    if (kv.size() != 2) {
      *error =
          "requirement failed: Invalid entity config: all configs to be added must be in the format \"key=val\" or  "
          "\"key=[val1,val2]\" to group values which contain commas.";
      return false;
    }
    pairs.emplace_back(java_trim(kv[0]), java_trim(without_brackets(kv[1])));
  }
  for (const auto& [k, v] : pairs) set_property(props, k, v);
  return true;
}

std::optional<std::string> invalid_key(const properties& props) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : props) keys.push_back(k);
  for (const auto& k : java::hash_map_order(keys, 16))
    if (!std::all_of(k.begin(), k.end(), key_character)) return k;
  return std::nullopt;
}

std::string source_name(int8_t id) {
  static const char* const names[] = {"UNKNOWN",
                                      "DYNAMIC_TOPIC_CONFIG",
                                      "DYNAMIC_BROKER_CONFIG",
                                      "DYNAMIC_DEFAULT_BROKER_CONFIG",
                                      "STATIC_BROKER_CONFIG",
                                      "DEFAULT_CONFIG",
                                      "DYNAMIC_BROKER_LOGGER_CONFIG",
                                      "DYNAMIC_CLIENT_METRICS_CONFIG",
                                      "DYNAMIC_GROUP_CONFIG"};
  if (id < 0 || id >= static_cast<int8_t>(std::size(names))) return "UNKNOWN";
  return names[id];
}

std::string entry_line(const config_entry& e) {
  std::vector<std::string> synonyms;
  for (const auto& s : e.synonyms) synonyms.push_back(source_name(s.source) + ":" + s.name + "=" + s.value.value_or("null"));
  return "  " + e.name + "=" + e.value.value_or("null") + " sensitive=" + (e.sensitive ? "true" : "false") +
         " synonyms={" + join(synonyms, ", ") + "}";
}

std::string describe_header(std::string_view entity_type, const std::string& name, bool all) {
  if (name.empty()) return "Default configs for " + std::string(entity_type) + " in the cluster are:";
  return std::string(all ? "All" : "Dynamic") + " configs for " +
         std::string(entity_type.substr(0, entity_type.size() - 1)) + " " + name + " are:";
}

std::string missing_line(std::string_view entity_type, const std::string& name) {
  return "The " + std::string(entity_type.substr(0, entity_type.size() - 1)) + " '" + name +
         "' doesn't exist and doesn't have dynamic config.";
}

std::vector<config_entry> filter_and_sort(std::vector<config_entry> entries, std::optional<int8_t> source) {
  if (source)
    entries.erase(std::remove_if(entries.begin(), entries.end(), [&](const config_entry& e) { return e.source != *source; }),
                  entries.end());
  std::stable_sort(entries.begin(), entries.end(),
                   [](const config_entry& a, const config_entry& b) { return java::less(a.name, b.name); });
  return entries;
}

}  // namespace hw::tools::configs
