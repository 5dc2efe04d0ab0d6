#pragma once
// A consumer group as ConsumerGroupDescribe shows it (Kafka's
// ConsumerGroup.asDescribedGroup): its state, epochs and preferred
// assignor, and each member with its subscription, what it holds now
// (assigned and still being revoked, topics named from the image, a topic
// the image no longer has left out) and its target. Pure; on the shard's
// strand.

#include <string>

#include "broker/group/consumer/consumer_group.h"
#include "broker/group/consumer/target_assignment.h"
#include "protocol/messages/consumer_group_describe.h"

namespace hw::broker::group::consumer {

// The server assignor most members ask for (ties: the first by name), or
// `default_assignor` when none asks.
std::string preferred_assignor(const consumer_group& group, const std::string& default_assignor);

protocol::msg::consumer_group_describe_response::described_group describe(const consumer_group& group,
                                                                          const std::string& default_assignor,
                                                                          const topic_image_view& topics);

}  // namespace hw::broker::group::consumer
