#pragma once
// A consumer group's next target assignment (Kafka's TargetAssignmentBuilder):
// every member's subscription resolved to topic ids (names and the topics
// its regular expression resolved to), its current target as the starting
// point, the member the heartbeat adds, changes or removes applied, the
// assignor asked, and the records that persist the answer: one target
// record for each member whose partitions changed, then the target epoch.
// Pure; called on the group's shard strand.
//
// Where Kafka's answer depends on Java's iteration order of its collections
// (the members in its TimelineHashMap, a member's names in its HashSet),
// this takes the members in member id order and the names in name order:
// the same groups get the same partitions per member as Kafka when those
// orders agree (the assignors' own orders are Kafka's, assignor.h).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/group/consumer/assignor.h"
#include "broker/group/consumer/consumer_group.h"

namespace hw::broker::group::consumer {

// The topics as the coordinator's metadata image has them.
class topic_image_view : public topic_describer {
 public:
  virtual std::optional<protocol::uuid> topic_id(std::string_view name) const = 0;
  virtual std::optional<std::string> topic_name(const protocol::uuid& id) const = 0;
  // Every topic's name (regular expressions are resolved against them).
  virtual std::vector<std::string> topic_names() const = 0;
  // The topic's partitions' racks, for the metadata hash (none by default).
  virtual std::vector<std::vector<std::string>> partition_racks(const protocol::uuid& id) const {
    (void)id;
    return {};
  }
  // The image's version (the metadata offset it stands at), which a
  // regular expression's record keeps as the image it was resolved on.
  virtual int64_t version() const { return 0; }
  // A group-level config the image holds for the group (the GROUP config
  // resource: consumer.session.timeout.ms and the like), if set.
  virtual std::optional<std::string> group_config(std::string_view group_id, std::string_view key) const {
    (void)group_id;
    (void)key;
    return std::nullopt;
  }
  // The same as an int32 (nullopt when unset or not a whole int32).
  std::optional<int32_t> group_config_int(std::string_view group_id, std::string_view key) const;
};

// What the heartbeat changes before the assignment: a member added or
// changed (its new subscription), or a member removed.
struct member_change {
  std::optional<consumer_member> updated;
  std::optional<std::string> removed_member_id;
};

struct target_assignment_result {
  std::map<std::string, topic_partitions> members;  // every member's new target
  std::vector<consumer_group_record> records;       // changed members' targets, then the target epoch
};

std::variant<target_assignment_result, assignor_error> compute_target_assignment(
    const consumer_group& group, int32_t target_epoch, int64_t now_ms, const assignor& assignor,
    const topic_image_view& topics, const member_change& change);

// The member's subscription as the assignors take it: its names resolved to
// ids (names of no topic counted apart) and, when its regular expression is
// resolved in `group`, the topics it resolved to.
member_spec spec_of(const consumer_member& member, const consumer_group& group, const topic_image_view& topics,
                    const topic_partitions& current_target);

}  // namespace hw::broker::group::consumer
