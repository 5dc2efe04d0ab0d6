#include "broker/metadata/controller_options.h"

#include <memory>
#include <random>

#include "config/group_configs.h"
#include "config/topic_configs.h"
#include "config/topic_configs_describe.h"
#include "controller/metadata/config_resolver.h"

namespace hw::broker {

controller::quorum_controller_options make_quorum_controller_options(const config::broker_config& c,
                                                                     const std::string& cluster_id) {
  controller::quorum_controller_options o;
  auto static_config = std::make_shared<const config::broker_config>(c);
  o.configuration.static_config = static_config;
  o.configuration.node_id = c.node_id;
  o.cluster.cluster_id = cluster_id;
  o.replication.num_partitions = c.num_partitions;
  o.replication.default_replication_factor = static_cast<int16_t>(c.default_replication_factor);
  o.replication.unclean_election_interval_ms = c.get_int("unclean.leader.election.interval.ms");
  o.replication.auto_leader_rebalance_enable = c.get_bool("auto.leader.rebalance.enable");
  o.replication.leader_imbalance_check_interval_ms = c.get_int("leader.imbalance.check.interval.seconds") * 1000;
  o.replication.delete_topic_enable = c.get_bool("delete.topic.enable");
  o.cluster.broker_session_timeout_ms = c.get_int("broker.session.timeout.ms");
  o.configuration.validate_topic_config = [](std::string_view key, std::string_view value)
      -> std::optional<std::pair<protocol::error_code, std::string>> {
    if (auto e = config::validate_topic_config(key, value))
      return std::make_pair(protocol::error_code::invalid_config, e->message);
    return std::nullopt;
  };
  o.configuration.validate_group_configs = [static_config, node_id = c.node_id](
                                  const std::map<std::string, std::string>& configs,
                                  const controller::metadata_image& image)
      -> std::optional<std::pair<protocol::error_code, std::string>> {
    const config::config_map group(configs.begin(), configs.end());
    if (auto e = config::validate_group_configs(group, controller::broker_layers(*static_config, image, node_id)))
      return std::make_pair(protocol::error_code::invalid_config, e->message);
    return std::nullopt;
  };
  // CreateTopics v5+ answers each new topic's effective configs, as Kafka does.
  o.replication.effective_topic_configs = [static_config, node_id = c.node_id](
                                  const std::map<std::string, std::string>& overrides,
                                  const controller::metadata_image& image) {
    const config::config_map topic(overrides.begin(), overrides.end());
    std::vector<controller::effective_config> out;
    for (auto& d : config::describe_topic_configs(topic, controller::broker_layers(*static_config, image, node_id), {}))
      out.push_back({d.name, d.value, d.read_only, static_cast<int8_t>(d.source), d.is_sensitive});
    return out;
  };
  o.replication.random_seed = std::random_device{}();
  o.acl_random_seed = (uint64_t{std::random_device{}()} << 32) | std::random_device{}();
  if (const std::string& secret = c.get_string("delegation.token.secret.key"); !secret.empty())
    o.delegation_tokens.secret_key = secret;
  o.delegation_tokens.max_lifetime_ms = c.get_int("delegation.token.max.lifetime.ms");
  o.delegation_tokens.expiry_time_ms = c.get_int("delegation.token.expiry.time.ms");
  o.delegation_token_check_interval_ms = c.get_int("delegation.token.expiry.check.interval.ms");
  return o;
}

}  // namespace hw::broker
