#pragma once
// Configuration control: dynamic configs of topics, brokers (the cluster
// default under the name "") and groups — the image's `configs`, written
// by ConfigRecords — with Kafka 4.3's ConfigurationControlManager rules:
// IncrementalAlterConfigs (SET, DELETE, APPEND, SUBTRACT) and the legacy
// AlterConfigs, each key checked by the injected validators, and the ELR
// rules for min.insync.replicas (ClearElrRecords when it moves). It also
// answers a topic's effective min.insync.replicas and
// unclean.leader.election.enable, which replication control decides
// elections with, through the one config_resolver the brokers use too.
//
// Owner: the controller strand, through quorum_controller. Generates,
// never mutates: every call takes the working image.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/broker_config.h"
#include "controller/controller_result.h"
#include "controller/metadata/config_resolver.h"
#include "controller/metadata/image.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/incremental_alter_configs.h"

namespace hw::controller {

// Checks one config of a resource: nullopt when valid, else the error code
// (INVALID_CONFIG, ...) and Kafka's message ("Unknown topic config name: x",
// "Invalid value abc for configuration retention.ms: Not a number of type LONG").
using config_validator =
    std::function<std::optional<std::pair<error_code, std::string>>(std::string_view key, std::string_view value)>;

// Checks a config resource's full set of configs after a change, against
// the image's broker configs (GROUP resources: Kafka's GroupConfig.validate,
// with the broker's bounds): nullopt when valid, else the error and
// Kafka's message.
using config_set_validator = std::function<std::optional<std::pair<error_code, std::string>>(
    const std::map<std::string, std::string>& configs, const metadata_image& image)>;

struct configuration_control_options {
  // This node's static config and id, the layers under the dynamic ones
  // (null: Kafka's defaults only).
  std::shared_ptr<const config::broker_config> static_config;
  int32_t node_id = 1;
  config_validator validate_topic_config;   // empty: every key and value accepted
  config_validator validate_broker_config;  // empty: every key and value accepted
  config_set_validator validate_group_configs;  // empty: every key and value accepted
};

class configuration_control {
 public:
  explicit configuration_control(configuration_control_options options);

  controller_result<msg::incremental_alter_configs_response> incremental_alter_configs(
      const metadata_image& image, const msg::incremental_alter_configs_request& request) const;
  controller_result<msg::alter_configs_response> alter_configs(const metadata_image& image,
                                                               const msg::alter_configs_request& request) const;
  // The ConfigRecords of a topic being created with these configs (one per
  // key, the last value of a repeated key winning), validated.
  api_error new_topic_config_records(const metadata_image& image,
                                     const msg::create_topics_request::creatable_topic& topic,
                                     std::vector<metadata_record>& out) const;

  // What turning ELR on writes first (Kafka's
  // maybeGenerateElrSafetyRecords): the cluster-wide min.insync.replicas at
  // this node's static value when none is set, and every broker-level one
  // removed (brokers by id).
  std::vector<metadata_record> elr_safety_records(const metadata_image& image) const;

  // A topic's effective configs, with the precedence config_resolver.h
  // describes (this node's broker configs are the controller's).
  const config_resolver& resolver() const { return resolver_; }
  int32_t effective_min_isr(const metadata_image& image, const topic_image& topic) const {
    return resolver_.effective_min_isr(image, topic);
  }
  bool unclean_election_enabled(const metadata_image& image, std::string_view topic) const {
    return resolver_.unclean_election_enabled(image, topic);
  }

 private:
  // Config changes of one resource: validation, existence, the ELR rules,
  // ClearElrRecords. `implicit_deletes` are keys the legacy AlterConfigs
  // removes by omission.
  api_error alter_config_resource(const metadata_image& image, const config_resource& resource,
                                  const std::vector<msg::config_record>& explicit_changes,
                                  const std::vector<msg::config_record>& implicit_deletes, bool newly_created,
                                  std::vector<metadata_record>& out) const;
  api_error validate_config_resource(const metadata_image& image, const config_resource& resource,
                                     const std::map<std::string, std::string>& all) const;

  configuration_control_options options_;
  config_resolver resolver_;
};

}  // namespace hw::controller
