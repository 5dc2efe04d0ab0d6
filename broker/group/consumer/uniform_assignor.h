#pragma once
// Kafka's UniformAssignor ("uniform", the default of
// group.consumer.assignors): balanced and sticky. Every member ends within
// one partition of every other member subscribed to the same topics, and
// keeps as much of its current assignment as that allows. A homogeneous
// group goes to the homogeneous builder, any other to the heterogeneous
// one. Stateless; any thread.

#include "broker/group/consumer/assignor.h"

namespace hw::broker::group::consumer {

class uniform_assignor final : public assignor {
 public:
  static constexpr std::string_view kName = "uniform";
  explicit uniform_assignor(jdk_release jdk = jdk_release::java17) : jdk_(jdk) {}
  std::string_view name() const override { return kName; }
  assignment_result assign(const group_spec& group, const topic_describer& topics) const override;

 private:
  jdk_release jdk_;
};

}  // namespace hw::broker::group::consumer
