#pragma once
// One consumer group (KIP-848) as its coordinator keeps it: the group epoch
// and metadata hash, the members, the target assignment and its epoch, the
// resolved regular expressions, and which member epoch holds each partition.
// It changes only by replaying its `__consumer_offsets` records: those read
// at load and those the coordinator has just written, through the same
// `replay`, so a group rebuilt from the log is the group that wrote it.
// What is derived (the state, the subscribed topics, the subscription type)
// is computed from the members when asked. Rules follow Kafka 4.3.1's
// ConsumerGroup and its record replay. Pure; owned by its shard, on the
// shard's strand.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/consumer/consumer_group_records.h"
#include "broker/group/consumer/consumer_member.h"
#include "broker/group/consumer/partition_epochs.h"
#include "broker/group/consumer/topic_partitions.h"

namespace hw::broker::group::consumer {

// ConsumerGroupDescribe's and ListGroups' names: Empty, Assigning,
// Reconciling, Stable, Dead.
enum class consumer_group_state { empty, assigning, reconciling, stable, dead };
std::string_view to_string(consumer_group_state state);

// A regular expression resolved against the topic image: the topics it
// matched, the image version it was resolved at, and when.
struct resolved_regex {
  std::set<std::string> topics;
  int64_t version = 0;
  int64_t timestamp_ms = 0;
  bool operator==(const resolved_regex&) const = default;
};

// How a topic is subscribed to: by how many members by name, and by how
// many distinct resolved regular expressions.
struct subscription_count {
  int by_name = 0;
  int by_regex = 0;
  bool operator==(const subscription_count&) const = default;
};

class consumer_group {
 public:
  explicit consumer_group(std::string group_id) : group_id_(std::move(group_id)) {}

  const std::string& group_id() const { return group_id_; }
  int32_t group_epoch() const { return group_epoch_; }
  int64_t metadata_hash() const { return metadata_hash_; }
  // The epoch of the target assignment: 1 in a new group, -1 once its
  // record's tombstone is replayed.
  int32_t assignment_epoch() const { return assignment_epoch_; }
  int64_t assignment_timestamp_ms() const { return assignment_timestamp_ms_; }
  const std::map<std::string, consumer_member>& members() const { return members_; }
  const consumer_member* member(const std::string& member_id) const;
  // The member id a static member's instance id is held by now.
  const std::string* static_member_id(const std::string& instance_id) const;
  const std::map<std::string, topic_partitions>& target_assignment() const { return target_; }
  const std::map<std::string, resolved_regex>& resolved_regexes() const { return regexes_; }
  const partition_epochs& current_partition_epochs() const { return partition_epochs_; }
  // A partition-metadata record of a release before 4.1 is in the log: the
  // next write of this group removes it (a tombstone), as Kafka does.
  bool has_legacy_partition_metadata() const { return legacy_partition_metadata_; }
  // The group record's tombstone has been replayed: the shard drops it.
  bool deleted() const { return deleted_; }

  consumer_group_state state() const;

  // Every topic the members subscribe to, by name or through a resolved
  // regular expression.
  std::map<std::string, subscription_count> subscribed_topics() const;
  // Each regular expression the members subscribe to, with how many do.
  std::map<std::string, int> subscribed_regexes() const;
  // Whether every member subscribes to the same topics (Kafka's
  // HOMOGENEOUS subscription type, which lets an assignor take its faster
  // path): all by the same names, or all by one regular expression alone.
  bool homogeneous_subscriptions() const;

  // --- Members of the classic protocol (migration) -------------------------
  int classic_member_count() const;
  // Whether a classic member of `protocol_type` offering `protocol_names`
  // may join: the consumer protocol type, and any protocol while the group
  // is empty, else one every classic member offers too.
  bool supports_classic_protocols(std::string_view protocol_type,
                                  const std::vector<std::string>& protocol_names) const;
  // Whether every member but those named speaks the classic protocol.
  bool all_classic_except(const std::set<std::string>& member_ids) const;
  // Whether `member` (UNRELEASED_PARTITIONS) waits for a partition of its
  // target that another member still holds.
  bool waiting_on_unreleased_partition(const consumer_member& member) const;

  // Applies one of this group's records. An error names an invariant the
  // records break (Kafka's IllegalStateException during replay); the group
  // is then as it was before the record.
  std::optional<std::string> replay(const consumer_group_record& record);

 private:
  std::optional<std::string> replay_member_metadata(const member_metadata_record& r);
  std::optional<std::string> replay_current_assignment(const current_assignment_record& r);
  std::optional<std::string> replay_group_epoch(const group_epoch_record& r);

  std::string group_id_;
  // A new group starts at epoch 1 with a target of epoch 1 (Kafka 4.3), so
  // that its first member is given epoch 2.
  int32_t group_epoch_ = 1;
  int64_t metadata_hash_ = 0;
  int32_t assignment_epoch_ = 1;
  int64_t assignment_timestamp_ms_ = 0;
  std::map<std::string, consumer_member> members_;
  std::map<std::string, std::string> static_members_;  // instance id → member id
  std::map<std::string, topic_partitions> target_;
  std::map<std::string, resolved_regex> regexes_;
  partition_epochs partition_epochs_;
  bool legacy_partition_metadata_ = false;
  bool deleted_ = false;
};

// The same over any members' subscriptions (the group's, or the group's
// with a heartbeat's change applied).
std::map<std::string, int> subscribed_regexes(const std::vector<const member_subscription*>& members);
std::map<std::string, subscription_count> subscribed_topics(const std::vector<const member_subscription*>& members,
                                                             const std::map<std::string, resolved_regex>& resolved);
bool homogeneous_subscriptions(const std::vector<const member_subscription*>& members,
                               const std::map<std::string, resolved_regex>& resolved);

// --- Records of a member -------------------------------------------------
// Between the members as kept here and their record values. Partitions are
// written in ascending order.

member_subscription subscription_from(const msg::consumer_group_member_metadata_value& value);
msg::consumer_group_member_metadata_value to_value(const member_subscription& subscription);

// Partitions without their assignment epochs in the record (written before
// 4.3) are held at the record's member epoch, or 0 for a static member's
// -2, as Kafka reads them.
member_assignment assignment_from(const msg::consumer_group_current_member_assignment_value& value);
msg::consumer_group_current_member_assignment_value to_value(const member_assignment& assignment);

topic_partitions target_from(const msg::consumer_group_target_assignment_member_value& value);
msg::consumer_group_target_assignment_member_value to_value(const topic_partitions& target);

}  // namespace hw::broker::group::consumer
