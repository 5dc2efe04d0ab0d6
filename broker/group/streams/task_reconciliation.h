#pragma once
// One reconciliation step of a streams-group member towards its target
// (Kafka 4.3.1's streams CurrentAssignmentBuilder), a pure function:
// - STABLE at an older epoch: the tasks it keeps stay; the ones its target
//   drops are to be revoked (UNREVOKED_TASKS, same epoch) while it still
//   owns any (or did not say what it owns); otherwise it moves to the target
//   epoch, given the target's tasks not held elsewhere (an active task held
//   by anyone, a standby or warm-up held by its own process, counts as held)
//   and waiting for those in UNRELEASED_TASKS.
// - UNREVOKED_TASKS: stays until its owned tasks no longer contain the ones
//   being revoked, then moves on (at its epoch + 1 as the step's epoch).
// - UNRELEASED_TASKS: takes what has been released since.
// - UNKNOWN: fenced unless it says it owns nothing.
// Pure; on the group's shard strand.

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "broker/group/streams/streams_member.h"
#include "protocol/error_code.h"

namespace hw::broker::group::streams {

struct task_owners {
  // The process holding an active task now, if any.
  std::function<std::optional<std::string>(const std::string& subtopology, int32_t partition)> active_process;
  // The processes holding it as a standby or warm-up task.
  std::function<std::set<std::string>(const std::string& subtopology, int32_t partition)> standby_processes;
  std::function<std::set<std::string>(const std::string& subtopology, int32_t partition)> warmup_processes;
};

struct task_reconciliation_input {
  int32_t target_epoch = 0;
  tasks_tuple target;
  // What the heartbeat says the member owns; nullopt when it did not say.
  std::optional<tasks_tuple> owned;
  task_owners owners;
};

struct task_reconciliation {
  protocol::error_code error = protocol::error_code::none;  // or fenced_member_epoch
  std::string error_message;
  streams_member next;
};

task_reconciliation reconcile_tasks(const streams_member& member, const task_reconciliation_input& input);

}  // namespace hw::broker::group::streams
