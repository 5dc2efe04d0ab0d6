#pragma once
// What a broker checks itself, before forwarding, when asked to change
// BROKER configs (Kafka's ConfigAdminManager.preprocess and
// DynamicBrokerConfig.validate): a named broker must be this one; keys
// Kafka does not let change at runtime, values that do not parse, and
// per-broker keys set cluster-wide are refused with INVALID_REQUEST and
// Kafka's messages. Resources it refuses are answered here and not
// forwarded; the rest go to the controller. Pure; called by the
// AlterConfigs and IncrementalAlterConfigs handlers.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/error_code.h"

namespace hw::broker {

// A key the change sets (SET, APPEND, SUBTRACT; DELETE sets nothing), with
// its value.
struct broker_config_set {
  std::string key;
  std::string value;
};

using config_refusal = std::pair<protocol::error_code, std::string>;

// nullopt: the change may be forwarded. resource_name is "" (cluster-wide
// default) or a node id.
std::optional<config_refusal> check_broker_config_change(int32_t node_id, const std::string& resource_name,
                                                         const std::vector<broker_config_set>& sets);

// The answer to the whole request, in request order: the refused resources
// (refused[i] set) answered here, the others taken in turn from the
// controller's answer to the ones forwarded. For AlterConfigs and
// IncrementalAlterConfigs responses alike.
template <class Response, class Resource>
Response merge_config_answers(const std::vector<Resource>& resources,
                              const std::vector<std::optional<config_refusal>>& refused, Response answered) {
  Response out = answered;
  out.responses.clear();
  size_t next = 0;
  for (size_t i = 0; i < resources.size(); ++i) {
    if (refused[i]) {
      auto& r = out.responses.emplace_back();
      r.error_code = static_cast<int16_t>(refused[i]->first);
      r.error_message = refused[i]->second;
      r.resource_type = resources[i].resource_type;
      r.resource_name = resources[i].resource_name;
    } else if (next < answered.responses.size()) {
      out.responses.push_back(std::move(answered.responses[next++]));
    }
  }
  return out;
}

}  // namespace hw::broker
