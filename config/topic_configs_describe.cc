#include "config/topic_configs_describe.h"

#include <algorithm>
#include <charconv>

#include "config/listener_security.h"
#include "config/topic_configs.h"
#include "config/topic_configs_values.h"
#include "config/value_parse.h"

namespace hw::config {
namespace {

bool wanted(const describe_options& o, std::string_view name) {
  return o.keys.empty() || std::find(o.keys.begin(), o.keys.end(), name) != o.keys.end();
}

}  // namespace

std::vector<described_synonym> broker_synonyms(std::string_view name, const broker_config_layers& broker,
                                               bool sensitive) {
  std::vector<described_synonym> out;
  std::vector<std::string_view> names = broker_key_synonyms(name);
  auto add_level = [&](const config_map& level, config_source source) {
    for (std::string_view syn : names) {
      if (auto it = level.find(syn); it != level.end())
        out.push_back({std::string(syn), sensitive ? std::nullopt : std::optional(it->second), source});
    }
  };
  add_level(broker.dynamic_broker(), config_source::dynamic_broker_config);
  add_level(broker.dynamic_default(), config_source::dynamic_default_broker_config);
  add_level(broker.static_values(), config_source::static_broker_config);
  add_level(broker.default_values(), config_source::default_config);
  auto first = std::find_if(out.begin(), out.end(), [&](const described_synonym& s) { return s.name == name; });
  out.erase(out.begin(), first);
  return out;
}

namespace {

// Fills source and synonyms from the full synonym list.
void finish(described_config& c, std::vector<described_synonym> synonyms, const describe_options& o) {
  c.source = synonyms.empty() ? config_source::default_config : synonyms.front().source;
  if (o.include_synonyms) c.synonyms = std::move(synonyms);
}

described_config describe_broker_key(const config_key& key, std::optional<std::string> value,
                                     std::vector<described_synonym> synonyms, const describe_options& o) {
  described_config c;
  c.name = std::string(key.name);
  c.is_sensitive = key.type == value_type::password;
  if (!c.is_sensitive) c.value = std::move(value);
  c.read_only = broker_dynamic_mode(key.name) == dynamic_mode::read_only;
  c.type = described_type_of(key.type);
  if (o.include_documentation) c.documentation = std::string(key.doc);
  finish(c, std::move(synonyms), o);
  return c;
}

// A `listener.name.<l>.` override as Kafka describes it: typed and
// sensitive as the key it overrides (sensitive too when that key is not
// one Kafka knows), read-only because its name is not in Kafka's list of
// dynamic configs, from the dynamic or static level that holds it.
described_config describe_listener_override(const std::string& name, const broker_config_layers& broker,
                                            const describe_options& o) {
  const config_key* base = find_broker_key(*listener_base_key(name));
  described_config c;
  c.name = name;
  c.is_sensitive = !base || base->type == value_type::password;
  if (!c.is_sensitive) c.value = broker.current_text(name);
  c.read_only = true;
  c.type = base ? described_type_of(base->type) : described_type::unknown;
  finish(c, broker_synonyms(name, broker, c.is_sensitive), o);
  return c;
}

bool parse_broker_id(std::string_view s, int32_t& id) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), id);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

described_type described_type_of(value_type t) {
  switch (t) {
    case value_type::int16: return described_type::int16;
    case value_type::int32: return described_type::int32;
    case value_type::int64: return described_type::int64;
    case value_type::float64: return described_type::float64;
    case value_type::boolean: return described_type::boolean;
    case value_type::string: return described_type::string;
    case value_type::list: return described_type::list;
    case value_type::password: return described_type::password;
    case value_type::class_name: return described_type::class_name;
  }
  return described_type::unknown;
}

std::vector<described_config> describe_topic_configs(const config_map& overrides,
                                                     const broker_config_layers& broker,
                                                     const describe_options& options) {
  topic_config_values values = effective_topic_configs(overrides, broker);
  std::vector<described_config> out;
  for (const topic_config_key& key : topic_config_keys()) {
    if (!wanted(options, key.name)) continue;
    described_config c;
    c.name = std::string(key.name);
    c.value = describe_text(values.get(key.name));
    c.type = described_type_of(key.type);
    if (options.include_documentation) c.documentation = std::string(key.doc);
    std::vector<described_synonym> synonyms;
    // An override is listed with its parsed value (so "+5" shows as 5).
    if (values.is_override(key.name)) synonyms.push_back({c.name, c.value, config_source::topic_config});
    if (!key.synonyms.empty()) {
      auto from_broker = broker_synonyms(key.synonyms.front().name, broker, false);
      synonyms.insert(synonyms.end(), from_broker.begin(), from_broker.end());
    }
    finish(c, std::move(synonyms), options);
    out.push_back(std::move(c));
  }
  return out;
}

broker_describe_result describe_broker_configs(std::string_view resource_name, const broker_config_layers& broker,
                                               const describe_options& options) {
  broker_describe_result result;
  if (resource_name.empty()) {
    // Only the cluster-wide dynamic values, each with only its
    // cluster-wide synonyms.
    for (const auto& [name, value] : broker.dynamic_default()) {
      const config_key* key = find_broker_key(name);
      if (!key || !wanted(options, name)) continue;
      auto synonyms = broker_synonyms(name, broker, key->type == value_type::password);
      std::erase_if(synonyms, [](const described_synonym& s) {
        return s.source != config_source::dynamic_default_broker_config;
      });
      result.configs.push_back(describe_broker_key(*key, value, std::move(synonyms), options));
    }
    return result;
  }
  int32_t id = 0;
  if (!parse_broker_id(resource_name, id)) {
    result.invalid_request = "Broker id must be an integer, but it is: " + std::string(resource_name);
    return result;
  }
  if (id != broker.node_id()) {
    result.invalid_request = "Unexpected broker id, expected " + std::to_string(broker.node_id()) +
                             " or empty string, but received " + std::string(resource_name);
    return result;
  }
  std::vector<const config_key*> keys;
  for (const config_key& key : broker_config_keys())
    if (wanted(options, key.name)) keys.push_back(&key);
  std::sort(keys.begin(), keys.end(), [](const config_key* a, const config_key* b) { return a->name < b->name; });
  for (const config_key* key : keys) {
    auto synonyms = broker_synonyms(key->name, broker, key->type == value_type::password);
    result.configs.push_back(describe_broker_key(*key, broker.current_text(key->name), std::move(synonyms), options));
  }
  // Then the listeners' overrides this broker has, static or dynamic.
  std::vector<std::string> overrides;
  for (const config_map* level : {&broker.dynamic_broker(), &broker.static_values()})
    for (const auto& [name, text] : *level)
      if (listener_base_key(name) && wanted(options, name)) overrides.push_back(name);
  std::sort(overrides.begin(), overrides.end());
  overrides.erase(std::unique(overrides.begin(), overrides.end()), overrides.end());
  for (const std::string& name : overrides) result.configs.push_back(describe_listener_override(name, broker, options));
  return result;
}

}  // namespace hw::config
