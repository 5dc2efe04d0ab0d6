#pragma once
// The uniform assignor for a group whose members all subscribe to the same
// topics (Kafka's UniformHomogeneousAssignmentBuilder). Pure.
//
// Each member gets total / members partitions, and total % members of them
// one more; a member keeps what it holds up to that quota, gives up the
// rest and any topic no longer subscribed, then the members still below
// their quota take the free partitions in turn.
//
// Orders that decide the answer, all Java's:
//   - members: the HashMap of member specs (java_group_view.h). Members
//     early in it claim the extra partitions they can fill from what they
//     hold; the last ones take whatever extras are left.
//   - topics: a HashSet copy of the first member's subscription. The free
//     partitions queue topic by topic in that order, each topic's in
//     ascending order, and the partitions given up join the queue after
//     them.
//   - what a member holds: its HashMap of topics and each topic's HashSet,
//     as read back from its record. Its quota goes to the topics met first,
//     and within a topic to the partitions met first.

#include "broker/group/consumer/assignor.h"

namespace hw::broker::group::consumer {

assignment_result build_uniform_homogeneous(const group_spec& group, const topic_describer& topics, jdk_release jdk);

}  // namespace hw::broker::group::consumer
