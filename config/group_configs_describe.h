#pragma once
// DescribeConfigs answers for GROUP resources as Kafka 4.3 gives them: every
// group config (or the named ones) with the group's value, source
// (DYNAMIC_GROUP_CONFIG when the group sets it, else DEFAULT_CONFIG),
// synonyms (the group's own value, then the broker key it defaults from at
// every level, or GroupConfig's default for keys without one), never read
// only, never sensitive. Plain structs, as for topics.

#include "config/group_configs.h"
#include "config/topic_configs_describe.h"

namespace hw::config {

// A group need not exist to be described: one without configs shows the
// broker's defaults. The caller refuses an empty group name (INVALID_REQUEST
// "Group name must not be empty").
std::vector<described_config> describe_group_configs(const config_map& group, const broker_config_layers& broker,
                                                     const describe_options& options);

}  // namespace hw::config
