// The rebalance machinery of classic groups: preparing a rebalance, the
// join barrier, the next generation, propagating assignments and the
// member / join / sync timers — after Kafka 4.3's GroupMetadataManager.
#include <algorithm>
#include <cassert>

#include "broker/group/group_shard.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

void group_shard::reschedule_heartbeat(group_member& m, int64_t now_ms, int64_t timeout_ms) {
  m.heartbeat_deadline_ms = now_ms + timeout_ms;
}

msg::join_group_response group_shard::join_response(const classic_group& g, const std::string& member_id,
                                                    bool with_members) const {
  msg::join_group_response r;
  if (with_members) r.members = g.join_members();
  r.member_id = member_id;
  r.generation_id = g.generation();
  r.protocol_name = g.protocol_name();
  r.protocol_type = g.protocol_type();
  r.leader = g.leader_id().value_or("");
  return r;
}

void group_shard::write_group(classic_group& g, append_callback done) {
  append({group_metadata_record(g.group_id(), g.record_value(nullptr))}, std::move(done));
}

void group_shard::maybe_prepare_rebalance_or_complete_join(classic_group& g, int64_t now_ms) {
  if (g.can_rebalance()) {
    prepare_rebalance(g, now_ms);
  } else {
    maybe_complete_join_phase(g, now_ms);
  }
}

void group_shard::prepare_rebalance(classic_group& g, int64_t now_ms) {
  if (g.in(group_state::completing_rebalance)) {
    reset_and_propagate_assignment(g, error_code::rebalance_in_progress, now_ms);
  }
  g.clear_pending_sync();
  g.sync_timer_.reset();
  bool initial = g.in(group_state::empty);
  if (initial) {
    // A new group waits a little for more members before the first generation.
    int32_t delay = config_.initial_rebalance_delay_ms;
    int32_t remaining = std::max(g.rebalance_timeout_ms() - delay, 0);
    g.join_timer_ = join_timer{now_ms + delay, true, delay, remaining};
  }
  g.transition_to(group_state::preparing_rebalance, now_ms);
  if (initial) return;
  if (g.all_members_joined()) {
    complete_join(g, now_ms);
  } else {
    g.join_timer_ = join_timer{now_ms + g.rebalance_timeout_ms(), false, 0, 0};
  }
}

void group_shard::maybe_complete_join_phase(classic_group& g, int64_t now_ms) {
  if (!g.in(group_state::preparing_rebalance)) return;
  // The initial rebalance completes on its timer only.
  if (g.previous_state() == group_state::empty) return;
  if (!g.all_members_joined()) return;
  complete_join(g, now_ms);
}

void group_shard::on_join_timer(classic_group& g, int64_t now_ms) {
  join_timer t = *g.join_timer_;
  g.join_timer_.reset();
  if (t.initial && g.new_member_added && t.remaining_ms != 0) {
    g.new_member_added = false;
    int32_t delay = std::min(config_.initial_rebalance_delay_ms, t.remaining_ms);
    int32_t remaining = std::max(t.remaining_ms - t.delay_ms, 0);
    g.join_timer_ = join_timer{now_ms + delay, true, delay, remaining};
    return;
  }
  complete_join(g, now_ms);
}

void group_shard::complete_join(classic_group& g, int64_t now_ms) {
  g.join_timer_.reset();
  // Dynamic members that did not rejoin are out; static ones keep their place.
  std::vector<std::string> gone;
  for (const auto& [id, m] : g.members()) {
    if (!m.awaiting_join && !m.group_instance_id) gone.push_back(id);
  }
  for (const auto& id : gone) g.remove(id);
  if (g.in(group_state::dead)) return;
  if (!g.maybe_elect_joined_leader() && !g.empty_of_members()) {
    // Nobody rejoined: wait another rebalance timeout for session expiry to
    // clear the group.
    g.join_timer_ = join_timer{now_ms + g.rebalance_timeout_ms(), false, 0, 0};
    return;
  }
  g.init_next_generation(now_ms);
  if (g.in(group_state::empty)) {
    // A failed write is fine: the previous generation stays in the log and
    // has no live members either.
    write_group(g, [](error_code, int64_t) {});
    return;
  }
  for (const auto& [id, cm] : g.members()) {
    group_member& m = *g.member(id);
    g.complete_join(m, join_response(g, id, g.is_leader(id)), output_.completions);
    reschedule_heartbeat(m, now_ms, m.session_timeout_ms);
    m.is_new = false;
    g.add_pending_sync(id);
  }
  g.sync_timer_ = sync_timer{now_ms + g.rebalance_timeout_ms(), g.generation()};
}

// The leader's SyncGroup: members it left out get an empty assignment; all
// parked syncs are answered once the group record holding it is durable.
void group_shard::store_leader_assignment(classic_group& g, const msg::sync_group_request& request) {
  std::map<std::string, std::vector<uint8_t>, std::less<>> assignment;
  for (const auto& a : request.assignments) assignment[a.member_id] = a.assignment;
  for (const auto& [mid, _] : g.members()) assignment.try_emplace(mid);
  std::string group_id = g.group_id();
  int32_t generation = request.generation_id;
  auto value = g.record_value(&assignment);
  append({group_metadata_record(group_id, value)},
         [this, group_id, generation, assignment = std::move(assignment)](error_code e, int64_t done_ms) {
           classic_group* cg = group(group_id);
           // A member may have joined meanwhile: only this generation's sync counts.
           if (!cg || !cg->in(group_state::completing_rebalance) || cg->generation() != generation) return;
           if (e != error_code::none) {
             reset_and_propagate_assignment(*cg, append_error_to_response_error(e), done_ms);
             maybe_prepare_rebalance_or_complete_join(*cg, done_ms);
             return;
           }
           for (const auto& [mid, _] : cg->members()) {
             auto it = assignment.find(mid);
             cg->member(mid)->assignment = it == assignment.end() ? std::vector<uint8_t>{} : it->second;
           }
           propagate_assignment(*cg, error_code::none, done_ms);
           cg->transition_to(group_state::stable, done_ms);
         });
}

void group_shard::reset_and_propagate_assignment(classic_group& g, error_code error, int64_t now_ms) {
  assert(g.in(group_state::completing_rebalance));
  for (const auto& [id, _] : g.members()) g.member(id)->assignment.clear();
  propagate_assignment(g, error, now_ms);
}

void group_shard::propagate_assignment(classic_group& g, error_code error, int64_t now_ms) {
  for (const auto& [id, _] : g.members()) {
    group_member& m = *g.member(id);
    msg::sync_group_response r;
    r.error_code = static_cast<int16_t>(error);
    r.assignment = m.assignment;
    if (error == error_code::none) {
      r.protocol_name = g.protocol_name();
      r.protocol_type = g.protocol_type();
    }
    // A session that expired while the member waited was ignored; it
    // starts again from here.
    if (g.complete_sync(m, std::move(r), output_.completions)) {
      reschedule_heartbeat(m, now_ms, m.session_timeout_ms);
    }
  }
}

void group_shard::expire_member(classic_group& g, const std::string& member_id, int64_t now_ms) {
  if (g.in(group_state::dead)) return;
  group_member* m = g.member(member_id);
  if (!m || m->has_satisfied_heartbeat()) return;
  remove_member_and_update(g, member_id, now_ms);
}

void group_shard::remove_member_and_update(classic_group& g, const std::string& member_id, int64_t now_ms) {
  group_member& m = *g.member(member_id);
  // A new member may time out while parked in JoinGroup: it hears
  // UNKNOWN_MEMBER_ID and may join again.
  msg::join_group_response r;
  r.error_code = static_cast<int16_t>(error_code::unknown_member_id);
  if (m.awaiting_join && m.awaiting_join->version < 7) r.protocol_name = "";
  else r.protocol_name.reset();
  g.complete_join(m, std::move(r), output_.completions);
  g.remove(member_id);
  if (g.in(group_state::stable) || g.in(group_state::completing_rebalance)) {
    maybe_prepare_rebalance_or_complete_join(g, now_ms);
  } else if (g.in(group_state::preparing_rebalance) && g.all_members_joined()) {
    complete_join(g, now_ms);
  }
}

void group_shard::expire_pending_sync(classic_group& g, int64_t now_ms) {
  sync_timer t = *g.sync_timer_;
  g.sync_timer_.reset();
  if (t.generation != g.generation()) return;
  if (!g.in(group_state::completing_rebalance) && !g.in(group_state::stable)) return;
  if (g.all_synced()) return;
  std::vector<std::string> laggards(g.pending_sync().begin(), g.pending_sync().end());
  for (const auto& id : laggards) {
    group_member* m = g.member(id);
    if (m) {
      g.complete_sync(*m, sync_error(error_code::unknown_member_id),
                      output_.completions);
    }
    g.remove(id);
  }
  prepare_rebalance(g, now_ms);
}

void group_shard::remove_pending_sync(classic_group& g, std::string_view member_id) {
  g.remove_pending_sync(member_id);
  switch (g.state()) {
    case group_state::dead:
    case group_state::empty:
    case group_state::preparing_rebalance:
      g.sync_timer_.reset();
      break;
    case group_state::completing_rebalance:
    case group_state::stable:
      if (g.all_synced()) g.sync_timer_.reset();
      break;
  }
}

}  // namespace hw::broker::group
