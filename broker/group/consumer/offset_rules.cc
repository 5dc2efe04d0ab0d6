#include "broker/group/consumer/offset_rules.h"

namespace hw::broker::group::consumer {

using protocol::error_code;

namespace {

offset_refusal stale(std::string message) { return {error_code::stale_member_epoch, std::move(message)}; }

}  // namespace

commit_check check_offset_commit(const consumer_group& group, const std::string& member_id,
                                 const std::optional<std::string>& instance_id, int32_t member_epoch,
                                 bool transactional, int16_t api_version) {
  // From outside the group (an admin, a consumer assigning itself): only
  // while the group has nobody in it.
  if (member_epoch < 0 && group.members().empty()) return {};
  // TxnOffsetCommit need not name its member.
  if (transactional && member_epoch == -1 && member_id.empty() && !instance_id) return {};
  const consumer_member* member = group.member(member_id);
  if (!member) {
    return {offset_refusal{error_code::unknown_member_id,
                           "Member " + member_id + " is not a member of group " + group.group_id() + "."},
            {}};
  }
  if (!transactional && api_version < 9) {
    return {offset_refusal{error_code::unsupported_version,
                           "OffsetCommit version 9 or above must be used by members using the consumer group protocol"},
            {}};
  }
  const int32_t current = member->current.epoch.value;
  if (member_epoch == current) return {};
  if (member_epoch > current) {
    return {stale("Received member epoch " + std::to_string(member_epoch) + " is newer than current member epoch " +
                  std::to_string(current) + "."),
            {}};
  }
  // An older epoch commits only partitions the member was given by then.
  commit_check check;
  const member_assignment assignment = member->current;
  check.per_partition = [assignment, member_epoch](const protocol::uuid& topic_id, const std::string& topic,
                                                   int32_t partition) -> std::optional<offset_refusal> {
    auto epoch = epoch_of(assignment.assigned, topic_id, partition);
    if (!epoch) epoch = epoch_of(assignment.pending_revocation, topic_id, partition);
    const std::string name = topic + "-" + std::to_string(partition);
    if (!epoch) return stale("Partition " + name + " is not assigned or pending revocation for member.");
    if (member_epoch < epoch->value) {
      return stale("Received member epoch " + std::to_string(member_epoch) + " is older than assignment epoch " +
                   std::to_string(epoch->value) + " for partition " + name + ".");
    }
    return std::nullopt;
  };
  return check;
}

std::optional<offset_refusal> check_offset_fetch(const consumer_group& group, const std::optional<std::string>& member_id,
                                                 int32_t member_epoch) {
  if (!member_id && member_epoch < 0) return std::nullopt;
  const consumer_member* member = member_id ? group.member(*member_id) : nullptr;
  if (!member) {
    return offset_refusal{error_code::unknown_member_id, "Member " + member_id.value_or("null") +
                                                             " is not a member of group " + group.group_id() + "."};
  }
  if (member_epoch != member->current.epoch.value) {
    return stale("The received member epoch " + std::to_string(member_epoch) + " does not match the expected member epoch " +
                 std::to_string(member->current.epoch.value) + ".");
  }
  return std::nullopt;
}

bool subscribes_to(const consumer_group& group, const std::string& topic) {
  return group.subscribed_topics().count(topic) > 0;
}

}  // namespace hw::broker::group::consumer
