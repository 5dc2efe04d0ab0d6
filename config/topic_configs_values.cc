#include "config/topic_configs_values.h"

#include <cassert>

#include "config/value_parse.h"

namespace hw::config {
namespace {

int64_t scaled(int64_t v, broker_synonym::unit in) {
  switch (in) {
    case broker_synonym::unit::same: return v;
    case broker_synonym::unit::minutes: return v * 60'000;
    case broker_synonym::unit::hours: return v * 3'600'000;
  }
  return v;
}

}  // namespace

config_value broker_default_for(const topic_config_key& key, const broker_config_layers& broker) {
  for (const broker_synonym& syn : key.synonyms) {
    const config_key* bkey = find_broker_key(syn.name);
    if (!bkey) continue;
    std::optional<std::string> text = broker.current_text(syn.name);
    if (!text) continue;
    parse_result parsed = parse_value(*bkey, *text);
    if (!std::holds_alternative<config_value>(parsed)) continue;
    config_value v = std::get<config_value>(std::move(parsed));
    if (std::holds_alternative<std::monostate>(v)) continue;
    if (auto* i = std::get_if<int64_t>(&v)) {
      int64_t n = scaled(*i, syn.in);
      if (key.name == "retention.ms" && n < 0) n = -1;
      return n;
    }
    return v;
  }
  return parse_topic_value(key, key.default_value);
}

namespace {

bool valid_override(const topic_config_key& key, const config_map& overrides) {
  auto it = overrides.find(key.name);
  return it != overrides.end() && !validate_topic_config(key.name, it->second);
}

}  // namespace

config_value effective_topic_config(const topic_config_key& key, const config_map& overrides,
                                    const broker_config_layers& broker) {
  if (valid_override(key, overrides)) return parse_topic_value(key, overrides.find(key.name)->second);
  return broker_default_for(key, broker);
}

topic_config_values effective_topic_configs(const config_map& overrides, const broker_config_layers& broker) {
  topic_config_values out;
  for (const topic_config_key& key : topic_config_keys()) {
    out.values_.emplace(std::string(key.name), effective_topic_config(key, overrides, broker));
    if (valid_override(key, overrides)) out.overridden_.emplace(key.name);
  }
  return out;
}

const config_value& topic_config_values::get(std::string_view key) const {
  auto it = values_.find(key);
  assert(it != values_.end() && "unknown topic config");
  return it->second;
}
int64_t topic_config_values::get_int(std::string_view key) const { return std::get<int64_t>(get(key)); }
bool topic_config_values::get_bool(std::string_view key) const { return std::get<bool>(get(key)); }
double topic_config_values::get_double(std::string_view key) const { return std::get<double>(get(key)); }
const std::string& topic_config_values::get_string(std::string_view key) const {
  return std::get<std::string>(get(key));
}
const std::vector<std::string>& topic_config_values::get_list(std::string_view key) const {
  return std::get<std::vector<std::string>>(get(key));
}

std::optional<topic_config_error> validate_topic_configs(const config_map& overrides,
                                                         const broker_config_layers& broker) {
  for (const auto& [key, value] : overrides) {
    if (auto err = validate_topic_config(key, value)) return err;
  }
  topic_config_values v = effective_topic_configs(overrides, broker);
  int64_t min_lag = v.get_int("min.compaction.lag.ms"), max_lag = v.get_int("max.compaction.lag.ms");
  if (min_lag > max_lag) {
    return topic_config_error{"conflict topic config setting min.compaction.lag.ms (" + std::to_string(min_lag) +
                              ") > max.compaction.lag.ms (" + std::to_string(max_lag) + ")"};
  }
  // Kafka's answer when remote.log.storage.system.enable is off, which is
  // always the case here.
  if (v.get_bool("remote.storage.enable")) {
    return topic_config_error{
        "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage."};
  }
  return std::nullopt;
}

}  // namespace hw::config
