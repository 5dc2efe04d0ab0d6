#pragma once
// One member of a streams group (KIP-1071) as the coordinator keeps it, in
// the shape of its two records: what it declared
// (StreamsGroupMemberMetadataValue: process, topology epoch, endpoint,
// tags) and where its reconciliation stands
// (StreamsGroupCurrentMemberAssignmentValue: epochs, state, the tasks it
// holds, active ones with the epoch they were given at, and those it must
// give up). A value type, as Kafka 4.3.1's StreamsGroupMember. Pure; owned
// by its group, on the shard's strand.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace hw::broker::group::streams {

// The byte the current-assignment record stores (not the consumer
// protocol's numbers).
enum class streams_member_state : int8_t {
  stable = 1,
  unrevoked_tasks = 2,
  unreleased_tasks = 3,
  unknown = 127,
};
streams_member_state streams_member_state_from_value(int8_t value);

// Tasks by subtopology id, with or without the epoch an active task was
// given at.
using task_set = std::map<std::string, std::set<int32_t>>;
using task_epochs = std::map<std::string, std::map<int32_t, int32_t>>;

// Active (with epochs), standby and warm-up tasks: what a member holds.
struct tasks_with_epochs {
  task_epochs active;
  task_set standby;
  task_set warmup;
  bool empty() const { return active.empty() && standby.empty() && warmup.empty(); }
  bool operator==(const tasks_with_epochs&) const = default;
};

// The same without epochs: a target, or what a heartbeat says it owns.
struct tasks_tuple {
  task_set active;
  task_set standby;
  task_set warmup;
  bool empty() const { return active.empty() && standby.empty() && warmup.empty(); }
  // Whether it holds any of `other`'s tasks (of the same kind).
  bool contains_any(const tasks_with_epochs& other) const;
  bool operator==(const tasks_tuple&) const = default;
};

// An endpoint for interactive queries.
struct user_endpoint {
  std::string host;
  uint16_t port = 0;
  bool operator==(const user_endpoint&) const = default;
};

// What the member declared (StreamsGroupMemberMetadataValue), beside its
// process id.
struct streams_member_metadata {
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = -1;
  int32_t topology_epoch = 0;
  std::optional<user_endpoint> endpoint;
  std::map<std::string, std::string> client_tags;
  bool operator==(const streams_member_metadata&) const = default;
};

struct streams_member {
  std::string member_id;
  int32_t epoch = 0;
  int32_t previous_epoch = -1;
  streams_member_state state = streams_member_state::stable;
  std::string process_id;
  streams_member_metadata metadata;
  tasks_with_epochs assigned;
  tasks_with_epochs pending_revocation;
  bool operator==(const streams_member&) const = default;
};

}  // namespace hw::broker::group::streams
