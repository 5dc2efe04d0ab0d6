#pragma once
// A topic's effective configs (config/topic_configs_values.h) as the
// log_config its partition logs read. Pure conversion; called by whoever
// (re)builds a topic's logs' settings when the topic's or the broker's
// configs change.

#include "config/topic_configs_values.h"
#include "storage/log_config.h"

namespace hw::storage {

log_config make_log_config(const config::topic_config_values& topic);
// Shorthand: the topic's overrides (ConfigRecords) over the broker's values.
log_config make_log_config(const config::config_map& overrides, const config::broker_config_layers& broker);

}  // namespace hw::storage
