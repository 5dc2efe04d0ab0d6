#include "broker/group/consumer/uniform_assignor.h"

#include "broker/group/consumer/uniform_heterogeneous_builder.h"
#include "broker/group/consumer/uniform_homogeneous_builder.h"

namespace hw::broker::group::consumer {

assignment_result uniform_assignor::assign(const group_spec& group, const topic_describer& topics) const {
  if (group.members.empty()) return group_assignment{};
  if (group.subscription == subscription_type::homogeneous) return build_uniform_homogeneous(group, topics, jdk_);
  return build_uniform_heterogeneous(group, topics, jdk_);
}

}  // namespace hw::broker::group::consumer
