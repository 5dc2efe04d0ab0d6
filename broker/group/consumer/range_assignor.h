#pragma once
// Kafka's server-side RangeAssignor ("range"): each topic's partitions cut
// into contiguous ranges, one per subscriber, the first subscribers taking
// one more when the count does not divide. Subscribers go in one order for
// every topic (static members by group.instance.id first, then the others
// by member id, both as Java's String.compareTo orders them), so members
// subscribed to the same topics of equal partition counts get the same
// partition numbers of each: co-partitioned. The current assignment plays
// no part. Stateless; any thread.

#include "broker/group/consumer/assignor.h"

namespace hw::broker::group::consumer {

class range_assignor final : public assignor {
 public:
  static constexpr std::string_view kName = "range";
  std::string_view name() const override { return kName; }
  assignment_result assign(const group_spec& group, const topic_describer& topics) const override;
};

}  // namespace hw::broker::group::consumer
