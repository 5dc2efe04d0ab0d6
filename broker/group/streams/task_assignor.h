#pragma once
// Kafka 4.3.1's StickyTaskAssignor, the streams groups' default ("sticky"):
// active tasks stay with the member that had them (or had them as standby)
// while it is under its share, the rest go to the least loaded process and
// its least loaded member; with num.standby.replicas, each stateful task's
// standby replicas go to other processes, first where the task was before.
// Ties are broken as Kafka's HashMaps and PriorityQueues break them (the
// Java models of broker/group/consumer/), so the answer is Kafka's for the
// same members taken in the same order. Pure; on the group's shard strand.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace hw::broker::group::streams {

// Tasks by subtopology id: each subtopology's partitions (task numbers).
using tasks_by_subtopology = std::map<std::string, std::set<int32_t>>;

// A member as the assignor sees it: its process and the tasks it holds now.
struct assignment_member {
  std::string member_id;
  std::string process_id;
  tasks_by_subtopology active;
  tasks_by_subtopology standby;
  tasks_by_subtopology warmup;
};

struct task_assignment_input {
  // In the order the coordinator puts them into its HashMap of member specs.
  std::vector<assignment_member> members;
  // num.standby.replicas; the assignment configs Kafka passes the assignor.
  int32_t num_standby_replicas = 0;
  // Subtopology id → its task count, and whether it keeps state (has
  // changelog topics).
  std::map<std::string, int32_t> tasks;
  std::set<std::string> stateful;
};

struct member_tasks {
  tasks_by_subtopology active;
  tasks_by_subtopology standby;
  tasks_by_subtopology warmup;
  bool operator==(const member_tasks&) const = default;
};

// Kafka's TaskAssignorException: the message.
struct task_assignor_error {
  std::string message;
};

// Each member's tasks (every member has an entry), or the error.
std::variant<std::map<std::string, member_tasks>, task_assignor_error> sticky_assign(const task_assignment_input& input);

}  // namespace hw::broker::group::streams
