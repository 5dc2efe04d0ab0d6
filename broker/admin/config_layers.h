#pragma once
// The broker's config layers as of a metadata image: the static config
// overlaid with the cluster-wide and this broker's dynamic ConfigRecords.
// DescribeConfigs reads them; the metadata publisher builds the same layers
// for log configs.

#include <memory>
#include <string>

#include "config/topic_configs_layers.h"
#include "controller/metadata/image.h"

namespace hw::broker {

inline config::config_map image_configs(const controller::metadata_image& image, controller::config_resource_type type,
                                        const std::string& name) {
  config::config_map out;
  if (const auto* c = image.config({type, name}))
    for (const auto& [k, v] : *c) out.emplace(k, v);
  return out;
}

inline config::broker_config_layers broker_layers(const config::broker_config& static_config,
                                                  const controller::metadata_image& image, int32_t node_id) {
  using controller::config_resource_type;
  return config::broker_config_layers(static_config, image_configs(image, config_resource_type::broker, ""),
                                      image_configs(image, config_resource_type::broker, std::to_string(node_id)));
}

}  // namespace hw::broker
