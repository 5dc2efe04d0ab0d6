#pragma once
// The uniform assignor for a group whose members subscribe to different
// topics (Kafka's UniformHeterogeneousAssignmentBuilder). Pure.
//
// Members keep every partition they hold of a topic they still subscribe
// to. The free partitions then go, topic by topic, to the topic's least
// loaded subscribers; last, partitions move from the most loaded
// subscribers of a topic to its least loaded until no move helps, up to 16
// rounds over the topics.
//
// Members are numbered in the iteration order of Kafka's HashMap of member
// specs (java_group_view.h), and that number breaks every tie between
// equally loaded members. Topics go in order of partitions per subscriber
// (descending), then subscriber count, then topic id as Java's
// Uuid.compareTo orders it (signed). Nothing else depends on an iteration
// order except the order of each member's answer listing.

#include "broker/group/consumer/assignor.h"

namespace hw::broker::group::consumer {

assignment_result build_uniform_heterogeneous(const group_spec& group, const topic_describer& topics,
                                              jdk_release jdk);

}  // namespace hw::broker::group::consumer
