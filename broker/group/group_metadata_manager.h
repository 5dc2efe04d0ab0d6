#pragma once
// The classic groups of one group shard and their membership requests,
// after Kafka 4.3's GroupMetadataManager: JoinGroup, SyncGroup, Heartbeat
// and LeaveGroup (group_metadata_manager_join.cc), DescribeGroups and
// ListGroups, the groups' records replayed at load, and their timers
// (through the rebalancer). Owned by the group_shard; runs on its strand.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/group/classic_group.h"
#include "broker/group/consumer/consumer_group_manager.h"
#include "broker/group/group_records.h"
#include "broker/group/offset_store.h"
#include "broker/group/rebalancer.h"
#include "broker/group/shard_context.h"
#include "protocol/error_code.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/sync_group.h"

namespace hw::broker::group {

// Who sent a request (client.id from the header, the peer address as Kafka
// prints it, e.g. "/127.0.0.1").
struct client_info {
  std::string client_id;
  std::string client_host;
};

class group_metadata_manager {
 public:
  // Returns uniformly random 64-bit values (seeded in tests).
  using random_source = std::function<uint64_t()>;
  using group_map = std::map<std::string, classic_group, std::less<>>;

  // `committed`: the shard's committed offsets (a new group whose first
  // record fails is forgotten only while it holds none).
  group_metadata_manager(shard_context& context, const offset_store& committed, random_source random);

  // --- the groups -----------------------------------------------------------
  classic_group* group(std::string_view group_id);
  const classic_group* find_group(std::string_view group_id) const;
  // An unknown group is created Empty.
  classic_group& get_or_create(std::string_view group_id, int64_t now_ms);
  void erase(std::string_view group_id);
  const group_map& groups() const { return groups_; }
  void clear() { groups_.clear(); }

  // --- migration to and from consumer groups (KIP-848) -----------------------
  // The group as an upgrade to a consumer group reads it.
  consumer::classic_group_snapshot upgrade_snapshot(const classic_group& g) const;
  // The group became a consumer group (or a write that made it failed):
  // every parked JoinGroup and SyncGroup is answered `error`, the group is
  // forgotten (its offsets stay).
  void dissolve(std::string_view group_id, protocol::error_code error);
  // A consumer group handed back to the classic protocol: the classic
  // group made Stable at its generation, the members' sessions starting
  // now, each member's target written as its assignment in its consumer
  // protocol's version; a rebalance prepared when asked. Returns the
  // group's record, to be written after the consumer group's tombstones.
  coordinator_record adopt(const consumer::downgrade& downgraded, const consumer::topic_image_view& topics,
                           int64_t now_ms);

  // --- load and unload ------------------------------------------------------
  // A GroupMetadata record (or its tombstone) in log order.
  void replay(const group_record& record);
  // The shard became coordinator: member sessions start now.
  void activate(int64_t now_ms);
  // Leadership went: every parked JoinGroup and SyncGroup is answered
  // NOT_COORDINATOR.
  void answer_parked_not_coordinator();

  // --- requests -------------------------------------------------------------
  void join_group(request_token token, int16_t version, const client_info& client,
                  const protocol::msg::join_group_request& request, int64_t now_ms);
  void sync_group(request_token token, int16_t version, const protocol::msg::sync_group_request& request,
                  int64_t now_ms);
  void heartbeat(request_token token, int16_t version, const protocol::msg::heartbeat_request& request,
                 int64_t now_ms);
  void leave_group(request_token token, int16_t version, const protocol::msg::leave_group_request& request,
                   int64_t now_ms);
  std::vector<protocol::msg::describe_groups_response::described_group> describe_groups(
      const std::vector<std::string>& group_ids) const;
  protocol::error_code list_groups(const std::vector<std::string>& states_filter,
                                   const std::vector<std::string>& types_filter,
                                   std::vector<protocol::msg::list_groups_response::listed_group>& out) const;

  // --- timers ---------------------------------------------------------------
  void tick(int64_t now_ms);
  std::optional<int64_t> next_deadline_ms() const;

 private:
  bool accept_joining_member(classic_group& g, std::string_view member_id) const;
  void join_new_member(classic_group& g, request_token token, int16_t version, const client_info& client,
                       const protocol::msg::join_group_request& request, int64_t now_ms);
  void join_existing_member(classic_group& g, request_token token, int16_t version, const client_info& client,
                            const protocol::msg::join_group_request& request, int64_t now_ms);
  void add_member_and_rebalance(classic_group& g, std::string member_id, request_token token, int16_t version,
                                const client_info& client, const protocol::msg::join_group_request& request,
                                int64_t now_ms);
  void update_member_and_rebalance(classic_group& g, group_member& m, request_token token, int16_t version,
                                   const protocol::msg::join_group_request& request, int64_t now_ms);
  void update_static_member(classic_group& g, const std::string& old_id, std::string new_id,
                            request_token token, int16_t version, const protocol::msg::join_group_request& request,
                            int64_t now_ms);
  // A new group's first (empty) record; the group is forgotten if it fails.
  void write_new_group(const classic_group& g);
  protocol::error_code leave_one(classic_group& g, const std::string& member_id,
                                 const std::optional<std::string>& instance_id);
  // The leader's SyncGroup: all parked syncs are answered once the group
  // record holding the assignment is durable.
  void store_leader_assignment(classic_group& g, const protocol::msg::sync_group_request& request);

  shard_context& ctx_;
  const offset_store& committed_;
  random_source random_;
  rebalancer rebalance_;
  group_map groups_;
};

}  // namespace hw::broker::group
