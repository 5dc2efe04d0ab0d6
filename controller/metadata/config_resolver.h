#pragma once
// A config's effective value as of a metadata image, with one precedence
// for every reader — the controller (min ISR and unclean elections), the
// broker's metadata publisher (log configs and leader settings, which the
// partitions act on) and DescribeConfigs:
//
//   topic override → this node's dynamic broker config → cluster-wide
//   dynamic default → static config (server.properties, KAFKA_* env,
//   --override) → Kafka's built-in default
//
// where a topic key falls back to the broker keys that are its synonyms
// (retention.ms ← log.retention.ms, .minutes, .hours), and a dynamic broker
// value hides the static values of its synonyms (config::broker_config_layers).
//
// Owner: one per strand (the controller's, the publisher's); not
// thread-safe, for the cache of the broker's layers, rebuilt only when the
// image's broker configs differ from the last call's. Pure.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "config/broker_config.h"
#include "config/topic_configs_layers.h"
#include "config/topic_configs_values.h"
#include "controller/metadata/image.h"

namespace hw::controller {

// The dynamic configs of one resource, as the image stores them.
config::config_map resource_configs(const metadata_image& image, config_resource_type type, const std::string& name);

// The broker's layers as of the image, for node_id.
config::broker_config_layers broker_layers(const config::broker_config& static_config, const metadata_image& image,
                                           int32_t node_id);

class config_resolver {
 public:
  config_resolver(std::shared_ptr<const config::broker_config> static_config, int32_t node_id);

  int32_t node_id() const { return node_id_; }
  const config::broker_config& static_config() const { return *static_; }

  const config::broker_config_layers& broker(const metadata_image& image) const;
  // Every config of a topic (DescribeConfigs, the log's config).
  config::topic_config_values topic(const metadata_image& image, std::string_view topic) const;
  // One config of a topic (a known topic key: asserted).
  config::config_value topic_value(const metadata_image& image, std::string_view topic, std::string_view key) const;

  // The min.insync.replicas elections and acks=all count against: the
  // topic's value, capped at its replication factor as Kafka's controller
  // caps it.
  int32_t effective_min_isr(const metadata_image& image, const topic_image& topic) const;
  bool unclean_election_enabled(const metadata_image& image, std::string_view topic) const;

 private:
  std::shared_ptr<const config::broker_config> static_;
  int32_t node_id_;
  struct broker_cache {
    std::map<std::string, std::string> cluster_default, this_node;
    std::optional<config::broker_config_layers> layers;
  };
  mutable broker_cache cache_;
};

}  // namespace hw::controller
