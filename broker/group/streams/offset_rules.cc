#include "broker/group/streams/offset_rules.h"

namespace hw::broker::group::streams {

using consumer::commit_check;
using consumer::offset_refusal;
using protocol::error_code;

namespace {

offset_refusal stale(std::string message) { return {error_code::stale_member_epoch, std::move(message)}; }

// The subtopology reading `topic` (a source or a repartition source topic).
const subtopology* reading(const topology& t, const std::string& topic) {
  for (const auto& s : t.subtopologies) {
    for (const auto& name : s.source_topics)
      if (name == topic) return &s;
    for (const auto& r : s.repartition_source_topics)
      if (r.name == topic) return &s;
  }
  return nullptr;
}

std::optional<int32_t> epoch_of(const task_epochs& tasks, const std::string& subtopology_id, int32_t partition) {
  auto s = tasks.find(subtopology_id);
  if (s == tasks.end()) return std::nullopt;
  auto p = s->second.find(partition);
  return p == s->second.end() ? std::nullopt : std::optional<int32_t>(p->second);
}

}  // namespace

commit_check check_offset_commit(const streams_group& group, const std::string& member_id,
                                 const std::optional<std::string>& instance_id, int32_t member_epoch,
                                 bool transactional, int16_t api_version) {
  if (member_epoch < 0 && group.members().empty()) return {};
  if (transactional && member_epoch == -1 && member_id.empty() && !instance_id) return {};
  const streams_member* member = group.member(member_id);
  if (!member) {
    return {offset_refusal{error_code::unknown_member_id,
                           "Member " + member_id + " is not a member of group " + group.group_id() + "."},
            {}};
  }
  if (!transactional && api_version < 9) {
    return {offset_refusal{error_code::unsupported_version,
                           "OffsetCommit version 9 or above must be used by members using the streams group protocol"},
            {}};
  }
  if (member_epoch == member->epoch) return {};
  if (member_epoch > member->epoch) {
    return {stale("Received member epoch " + std::to_string(member_epoch) + " is newer than current member epoch " +
                  std::to_string(member->epoch) + "."),
            {}};
  }
  if (!group.declared_topology())
    return {stale("Topology is not available for offset commit validation."), {}};
  // An older epoch commits only partitions of active tasks given by then.
  commit_check check;
  check.per_partition = [topology = *group.declared_topology(), assigned = member->assigned.active,
                         pending = member->pending_revocation.active,
                         member_epoch](const protocol::uuid&, const std::string& topic,
                                       int32_t partition) -> std::optional<offset_refusal> {
    const subtopology* s = reading(topology, topic);
    if (!s) return stale("Topic " + topic + " is not in the topology.");
    auto epoch = epoch_of(assigned, s->id, partition);
    if (!epoch) epoch = epoch_of(pending, s->id, partition);
    const std::string task = s->id + "-" + std::to_string(partition);
    if (!epoch) return stale("Task " + task + " is not assigned or pending revocation for member.");
    if (member_epoch < *epoch) {
      return stale("Received member epoch " + std::to_string(member_epoch) + " is older than assignment epoch " +
                   std::to_string(*epoch) + " for task " + task + ".");
    }
    return std::nullopt;
  };
  return check;
}

std::optional<offset_refusal> check_offset_fetch(const streams_group& group, const std::optional<std::string>& member_id,
                                                 int32_t member_epoch) {
  if (!member_id && member_epoch < 0) return std::nullopt;
  const streams_member* member = member_id ? group.member(*member_id) : nullptr;
  if (!member) {
    return offset_refusal{error_code::unknown_member_id, "Member " + member_id.value_or("null") +
                                                             " is not a member of group " + group.group_id() + "."};
  }
  if (member_epoch != member->epoch) {
    return stale("The received member epoch " + std::to_string(member_epoch) +
                 " does not match the expected member epoch " + std::to_string(member->epoch) + ".");
  }
  return std::nullopt;
}

bool subscribes_to(const streams_group& group, const std::string& topic) {
  const auto state = group.state();
  if (state == streams_group_state::empty || state == streams_group_state::dead) return false;
  return group.declared_topology() && reading(*group.declared_topology(), topic) != nullptr;
}

}  // namespace hw::broker::group::streams
