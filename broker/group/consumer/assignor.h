#pragma once
// The server-side assignors of KIP-848 consumer groups (Kafka's
// ConsumerGroupPartitionAssignor, `group.consumer.assignors`): the group
// coordinator hands one a group spec and a topic describer and gets back
// every member's target assignment, or an error where Kafka's assignor
// throws PartitionAssignorException (the coordinator then answers the
// heartbeat UNKNOWN_SERVER_ERROR, "Failed to compute a new target
// assignment for epoch <n>: <message>.").
//
// Kafka 4.3.1's assignors are the specification, including the places where
// their answer depends on the order in which Java iterates a HashMap or a
// HashSet. That order depends on how the coordinator built its collections,
// so the spec carries what decides it: the order of the members, of each
// subscription, and of each member's current assignment as its record
// listed it. Pure: no I/O, no clock; assignors are stateless and any thread
// may call them.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/group/consumer/jdk_release.h"
#include "broker/group/consumer/topic_partitions.h"
#include "protocol/wire/uuid.h"

namespace hw::broker::group::consumer {

// Whether every member subscribes to the same topics (Kafka decides it from
// the subscribed topic names and regular expressions; the caller says).
enum class subscription_type { homogeneous, heterogeneous };

// One topic of a member's partitions, in the order a
// ConsumerGroupTargetAssignmentMember record lists them.
struct listed_topic {
  protocol::uuid topic_id;
  std::vector<int32_t> partitions;
  bool operator==(const listed_topic&) const = default;
};
using partition_listing = std::vector<listed_topic>;

struct member_spec {
  std::string member_id;
  std::optional<std::string> instance_id;  // group.instance.id of a static member
  std::optional<std::string> rack_id;      // passed on; Kafka 4.3.1's assignors ignore it
  // The member's subscribed topics in the order Kafka iterates its
  // subscription: the order of its subscribed topic names, each resolved to
  // its id, names of no topic skipped. No id twice.
  std::vector<protocol::uuid> subscribed_topic_ids;
  // Subscribed names that resolve to no topic: Kafka's subscription still
  // counts them in its size, which sizes some of the assignors' maps.
  int32_t unresolved_topic_names = 0;
  // The member's current target assignment.
  topic_partitions assignment;
  // The same partitions in the order of the record Kafka's coordinator read
  // them from (it holds a target assignment as read back from its record).
  // Absent: ascending, topic ids by their bytes.
  std::optional<partition_listing> assignment_listing;
};

// Kafka's inverted target assignment: which member each partition of the
// group's current target assignment belongs to.
using partition_owners = std::map<protocol::uuid, std::map<int32_t, std::string>>;

struct group_spec {
  // In the order Kafka's TargetAssignmentBuilder fills its map of member
  // specs: the group's members as the group iterates them, then the member
  // whose heartbeat triggers the assignment. No member id twice.
  std::vector<member_spec> members;
  subscription_type subscription = subscription_type::homogeneous;
  partition_owners owners;
};

// The topics' metadata as the assignors see it (SubscribedTopicDescriber).
// Racks are left out: Kafka 4.3.1's uniform and range assignors never ask.
class topic_describer {
 public:
  virtual ~topic_describer() = default;
  // The topic's partition count, -1 when the metadata does not know it.
  virtual int32_t partition_count(const protocol::uuid& topic_id) const = 0;
};

// A describer over a plain map (tests, snapshots of the metadata image).
class partition_count_map final : public topic_describer {
 public:
  partition_count_map() = default;
  explicit partition_count_map(std::map<protocol::uuid, int32_t> counts) : counts_(std::move(counts)) {}
  void set(const protocol::uuid& topic_id, int32_t count) { counts_[topic_id] = count; }
  void erase(const protocol::uuid& topic_id) { counts_.erase(topic_id); }
  int32_t partition_count(const protocol::uuid& topic_id) const override;

 private:
  std::map<protocol::uuid, int32_t> counts_;
};

struct group_assignment {
  // Each member's new target assignment. Kafka's assignors answer every
  // member, except that the uniform one answers nobody when there is no
  // subscribed topic to assign; a member left out gets an empty assignment.
  std::map<std::string, topic_partitions> members;
  // The same partitions in the order Kafka's coordinator would list them in
  // the member's target assignment record. Where a member's partitions
  // changed, the coordinator writes that record and keeps this listing as
  // the member's assignment_listing; where they did not, it writes nothing
  // and keeps the listing it had.
  std::map<std::string, partition_listing> listings;
};

// What Kafka's assignor throws as PartitionAssignorException.
struct assignor_error {
  std::string message;
};

using assignment_result = std::variant<group_assignment, assignor_error>;

class assignor {
 public:
  virtual ~assignor() = default;
  // The name clients ask for in group.remote.assignor.
  virtual std::string_view name() const = 0;
  virtual assignment_result assign(const group_spec& group, const topic_describer& topics) const = 0;
};

// "uniform" or "range"; nullptr for any other name. The assignor answers as
// Kafka does on the given Java runtime (jdk_release.h).
std::unique_ptr<const assignor> make_assignor(std::string_view name, jdk_release jdk = jdk_release::java17);

// The owners as Kafka's group keeps them alongside the members' target
// assignments (a partition held twice goes to the later member).
partition_owners owners_of(const std::vector<member_spec>& members);

// Homogeneous when every member's subscribed topic ids are the same set
// (Kafka compares names; callers with names should decide from those).
subscription_type subscription_type_of(const std::vector<member_spec>& members);

topic_partitions partitions_of(const partition_listing& listing);
partition_listing ascending_listing(const topic_partitions& partitions);

}  // namespace hw::broker::group::consumer
