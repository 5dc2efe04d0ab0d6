#pragma once
// What the two source files of the consumer group manager share
// (consumer_group_manager.cc for the consumer protocol,
// consumer_group_manager_classic.cc for classic members): the draft a call
// builds its records in, and the records and checks both make. Internal to
// the manager; pure, on the shard's strand.

#include <optional>
#include <string>
#include <vector>

#include "broker/group/consumer/consumer_group.h"
#include "broker/group/consumer/consumer_group_manager.h"
#include "broker/group/consumer/heartbeat_request.h"
#include "broker/group/group_draft.h"

namespace hw::broker::group::consumer {

// One call's records (broker/group/group_draft.h), and what the manager
// learns along the way.
class draft : public group_draft<consumer_group, consumer_group_record> {
 public:
  explicit draft(const consumer_group& base) : group_draft(base, "consumer group") {}
  static draft of_new_group(const std::string& group_id) {
    return draft(group_draft::of_new_group(group_id, "consumer group"));
  }

  std::optional<int32_t> hash_checked_at;  // the group epoch its metadata hash was checked at
  int bumps = 0;                           // group epoch bumps (rebalances) among the records

 private:
  explicit draft(group_draft base) : group_draft(std::move(base)) {}
};

// --- Records and checks both parts of the manager make -------------------

inline group_epoch_record epoch_record(const std::string& group_id, int32_t epoch, int64_t hash) {
  group_epoch_record r;
  r.key.group_id = group_id;
  r.value.emplace();
  r.value->epoch = epoch;
  r.value->metadata_hash = hash;
  return r;
}

// The member's current assignment record.
inline current_assignment_record current_record(const std::string& group_id, const consumer_member& member) {
  current_assignment_record r;
  r.key.group_id = group_id;
  r.key.member_id = member.member_id;
  r.value = to_value(member.current);
  return r;
}

inline regular_expression_record regex_record(const std::string& group_id, const std::string& regex) {
  regular_expression_record r;
  r.key.group_id = group_id;
  r.key.regular_expression = regex;
  return r;
}

// The topics a regular expression may match in this heartbeat.
inline std::vector<std::string> visible_names(const topic_image_view& topics, const topic_filter& may_describe) {
  std::vector<std::string> names = topics.topic_names();
  if (may_describe) std::erase_if(names, [&](const std::string& n) { return !may_describe(n); });
  return names;
}

// A static member's heartbeat or leave names its instance id: refused when
// nobody holds it or another member id does (Kafka's
// throwIfStaticMemberIsUnknown / throwIfInstanceIdIsFenced).
inline std::optional<heartbeat_refusal> check_instance_holder(const consumer_group& group, const std::string& instance,
                                                       const std::string& member_id) {
  const std::string* holder = group.static_member_id(instance);
  if (!holder) return heartbeat_refusal{protocol::error_code::unknown_member_id, "Instance id " + instance + " is unknown."};
  if (*holder != member_id) {
    return heartbeat_refusal{protocol::error_code::fenced_instance_id, "Static member " + member_id + " with instance id " +
                                                                 instance + " was fenced by member " + *holder + "."};
  }
  return std::nullopt;
}

}  // namespace hw::broker::group::consumer
