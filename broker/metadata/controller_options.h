#pragma once
// The quorum controller's options from the broker configuration, with the
// config validators of config/topic_configs.

#include "config/broker_config.h"
#include "controller/quorum_controller.h"

namespace hw::broker {

controller::quorum_controller_options make_quorum_controller_options(const config::broker_config& config,
                                                                     const std::string& cluster_id);

}  // namespace hw::broker
