#pragma once
// The broker's configuration as Kafka layers it for topics and for
// DescribeConfigs: built-in defaults, the static file (server.properties, env,
// --override), cluster-wide dynamic defaults (ConfigRecords for the BROKER
// resource named "") and this broker's dynamic values (ConfigRecords for the
// BROKER resource named by its id). A value object: the owner of the metadata
// image rebuilds it when a broker ConfigRecord changes; readers take a copy
// or a const reference on their own strand.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/broker_config.h"

namespace hw::config {

using config_map = std::map<std::string, std::string, std::less<>>;

// How a broker key may be changed without a restart (Kafka 4.3's
// DynamicBrokerConfig): not at all, per broker only, or also cluster-wide.
enum class dynamic_mode : int8_t { read_only, per_broker, cluster_wide };
dynamic_mode broker_dynamic_mode(std::string_view key);

// Kafka's brokerConfigSynonyms: the keys that stand for the same setting, in
// precedence order (log.retention.ms, .minutes, .hours); just the key itself
// for most.
std::vector<std::string_view> broker_key_synonyms(std::string_view key);

class broker_config_layers {
 public:
  // dynamic_default / dynamic_broker: ConfigRecord values as stored. Entries
  // Kafka would ignore are dropped here: unknown or read-only keys, values
  // that do not parse, and per-broker keys in the cluster-wide defaults.
  broker_config_layers(const broker_config& static_config, config_map dynamic_default = {},
                       config_map dynamic_broker = {});

  int32_t node_id() const { return node_id_; }

  // The four sources, as DescribeConfigs lists them.
  const config_map& dynamic_broker() const { return dynamic_broker_; }
  const config_map& dynamic_default() const { return dynamic_default_; }
  const config_map& static_values() const { return static_; }
  const config_map& default_values() const { return defaults_; }

  // The text a broker key currently has: the static file overlaid by the
  // dynamic defaults and then the broker's dynamic values, where a dynamic
  // value also hides the static values of its synonyms (as Kafka does, so a
  // dynamic log.retention.ms hides a static log.retention.hours); then the
  // built-in default; nullopt for null.
  std::optional<std::string> current_text(std::string_view key) const;

 private:
  int32_t node_id_ = 0;
  config_map static_, defaults_, dynamic_default_, dynamic_broker_;
  config_map merged_;  // static + dynamic, synonyms hidden
};

}  // namespace hw::config
