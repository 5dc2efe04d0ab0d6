#include "controller/metadata/config_resolver.h"

#include <algorithm>
#include <cassert>

#include "config/topic_configs.h"

namespace hw::controller {

namespace {

const std::map<std::string, std::string>& configs_or_empty(const metadata_image& image, config_resource_type type,
                                                           const std::string& name) {
  static const std::map<std::string, std::string> none;
  const auto* c = image.config({type, name});
  return c ? *c : none;
}

}  // namespace

config::config_map resource_configs(const metadata_image& image, config_resource_type type, const std::string& name) {
  const auto& c = configs_or_empty(image, type, name);
  return config::config_map(c.begin(), c.end());
}

config::broker_config_layers broker_layers(const config::broker_config& static_config, const metadata_image& image,
                                           int32_t node_id) {
  return config::broker_config_layers(static_config, resource_configs(image, config_resource_type::broker, ""),
                                      resource_configs(image, config_resource_type::broker, std::to_string(node_id)));
}

config_resolver::config_resolver(std::shared_ptr<const config::broker_config> static_config, int32_t node_id)
    : static_(std::move(static_config)), node_id_(node_id) {
  assert(static_);
}

const config::broker_config_layers& config_resolver::broker(const metadata_image& image) const {
  const auto& cluster_default = configs_or_empty(image, config_resource_type::broker, "");
  const auto& this_node = configs_or_empty(image, config_resource_type::broker, std::to_string(node_id_));
  if (!cache_.layers || cache_.cluster_default != cluster_default || cache_.this_node != this_node) {
    cache_.cluster_default = cluster_default;
    cache_.this_node = this_node;
    cache_.layers.emplace(broker_layers(*static_, image, node_id_));
  }
  return *cache_.layers;
}

config::topic_config_values config_resolver::topic(const metadata_image& image, std::string_view topic) const {
  return config::effective_topic_configs(resource_configs(image, config_resource_type::topic, std::string(topic)),
                                         broker(image));
}

config::config_value config_resolver::topic_value(const metadata_image& image, std::string_view topic,
                                                  std::string_view key) const {
  const config::topic_config_key* k = config::find_topic_key(key);
  assert(k && "unknown topic config");
  const auto& overrides = configs_or_empty(image, config_resource_type::topic, std::string(topic));
  config::config_map one;
  if (auto it = overrides.find(std::string(key)); it != overrides.end()) one.emplace(it->first, it->second);
  return config::effective_topic_config(*k, one, broker(image));
}

int32_t config_resolver::effective_min_isr(const metadata_image& image, const topic_image& topic) const {
  const int64_t configured = std::get<int64_t>(topic_value(image, topic.name, "min.insync.replicas"));
  if (topic.partitions.empty()) return static_cast<int32_t>(configured);
  const auto replication_factor = static_cast<int64_t>(topic.partitions.begin()->second.replicas.size());
  return static_cast<int32_t>(std::min(configured, replication_factor));
}

bool config_resolver::unclean_election_enabled(const metadata_image& image, std::string_view topic) const {
  return std::get<bool>(topic_value(image, topic, "unclean.leader.election.enable"));
}

}  // namespace hw::controller
