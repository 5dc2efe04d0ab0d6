#include "broker/admin/broker_config_checks.h"

#include <charconv>

#include "config/config_key.h"
#include "config/listener_security.h"
#include "config/topic_configs_layers.h"
#include "config/value_parse.h"

namespace hw::broker {
namespace {

using protocol::error_code;

// Java's rendering of a set of names, as Kafka's messages print them.
std::string bracketed(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

}  // namespace

std::optional<config_refusal> check_broker_config_change(int32_t node_id, const std::string& resource_name,
                                                         const std::vector<broker_config_set>& sets) {
  const bool per_broker = !resource_name.empty();
  if (per_broker) {
    int64_t id = 0;
    auto [end, ec] = std::from_chars(resource_name.data(), resource_name.data() + resource_name.size(), id);
    if (ec != std::errc() || end != resource_name.data() + resource_name.size()) {
      return config_refusal{error_code::invalid_request, "Node id must be an integer, but it is: " + resource_name};
    }
    if (id != node_id) {
      return config_refusal{error_code::invalid_request, "Unexpected broker id, expected " + std::to_string(node_id) +
                                                             ", but received " + resource_name};
    }
  }
  // DynamicBrokerConfig.validateConfigs' order: keys that cannot change at
  // runtime, then types, then per-broker keys without a broker id. Keys
  // unknown here are stored as given, as Kafka stores unknown ones.
  std::vector<std::string> read_only, broker_only;
  for (const auto& s : sets) {
    const config::config_key* key = config::find_broker_key(s.key);
    if (key && config::broker_dynamic_mode(s.key) == config::dynamic_mode::read_only) read_only.push_back(s.key);
  }
  if (!read_only.empty()) {
    return config_refusal{error_code::invalid_request, "Cannot update these configs dynamically: " + bracketed(read_only)};
  }
  for (const auto& s : sets) {
    if (!per_broker && config::listener_tls_reconfigurable(s.key)) broker_only.push_back(s.key);
    const config::config_key* key = config::find_broker_key(s.key);
    if (!key) continue;
    auto parsed = config::parse_value(*key, s.value);
    if (auto* message = std::get_if<std::string>(&parsed)) return config_refusal{error_code::invalid_request, *message};
    if (!per_broker && config::broker_dynamic_mode(s.key) == config::dynamic_mode::per_broker)
      broker_only.push_back(s.key);
  }
  if (!broker_only.empty()) {
    return config_refusal{error_code::invalid_request,
                          "Cannot update these configs at default cluster level, broker id must be specified: " +
                              bracketed(broker_only)};
  }
  return std::nullopt;
}

}  // namespace hw::broker
