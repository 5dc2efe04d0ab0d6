#pragma once
// The rebalance machinery of classic groups, after Kafka 4.3's
// GroupMetadataManager: preparing a rebalance, the join barrier and its
// timers, the next generation, handing out the leader's assignment, and
// the member and pending-sync expirations. It acts on one classic_group at
// a time, answering parked requests and writing group records through the
// shard's context. Owned by the group_metadata_manager; runs on the
// shard's strand.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "broker/group/classic_group.h"
#include "broker/group/shard_context.h"
#include "protocol/error_code.h"
#include "protocol/messages/join_group.h"

namespace hw::broker::group {

// The member's session (or a new member's join) expires `timeout_ms` from now.
inline void reschedule_heartbeat(group_member& m, int64_t now_ms, int64_t timeout_ms) {
  m.heartbeat_deadline_ms = now_ms + timeout_ms;
}

// A JoinGroup answer naming the group's current generation; the member
// list only for the leader (`with_members`).
protocol::msg::join_group_response join_response(const classic_group& g, const std::string& member_id,
                                                 bool with_members);

class rebalancer {
 public:
  explicit rebalancer(shard_context& context) : ctx_(context) {}

  // Writes the group's record (its members' own assignments).
  void write_group(classic_group& g, shard_context::append_callback done);

  void maybe_prepare_rebalance_or_complete_join(classic_group& g, int64_t now_ms);
  void prepare_rebalance(classic_group& g, int64_t now_ms);
  // Completes the join phase once every member rejoined (not the initial one).
  void maybe_complete_join_phase(classic_group& g, int64_t now_ms);
  void complete_join(classic_group& g, int64_t now_ms);
  // Answers every parked SyncGroup with `error` and no assignment.
  void reset_and_propagate_assignment(classic_group& g, protocol::error_code error, int64_t now_ms);
  void propagate_assignment(classic_group& g, protocol::error_code error, int64_t now_ms);
  void remove_pending_sync(classic_group& g, std::string_view member_id);

  // Runs the group's due timers (pending members, sessions, join barrier,
  // pending sync) in deadline order, each at its own deadline.
  void run_timers(classic_group& g, int64_t now_ms);
  // When the group's next timer is due.
  static std::optional<int64_t> next_deadline_ms(const classic_group& g);

 private:
  void on_join_timer(classic_group& g, int64_t now_ms);
  void expire_member(classic_group& g, const std::string& member_id, int64_t now_ms);
  void remove_member_and_update(classic_group& g, const std::string& member_id, int64_t now_ms);
  void expire_pending_sync(classic_group& g, int64_t now_ms);

  shard_context& ctx_;
};

}  // namespace hw::broker::group
