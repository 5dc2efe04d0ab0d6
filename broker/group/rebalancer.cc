#include <algorithm>
#include <cassert>
#include <vector>

#include "broker/group/rebalancer.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

msg::join_group_response join_response(const classic_group& g, const std::string& member_id, bool with_members) {
  msg::join_group_response r;
  if (with_members) r.members = g.join_members();
  r.member_id = member_id;
  r.generation_id = g.generation();
  r.protocol_name = g.protocol_name();
  r.protocol_type = g.protocol_type();
  r.leader = g.leader_id().value_or("");
  return r;
}

void rebalancer::write_group(classic_group& g, shard_context::append_callback done) {
  ctx_.append({group_metadata_record(g.group_id(), g.record_value(nullptr))}, std::move(done));
}

void rebalancer::maybe_prepare_rebalance_or_complete_join(classic_group& g, int64_t now_ms) {
  if (g.can_rebalance()) {
    prepare_rebalance(g, now_ms);
  } else {
    maybe_complete_join_phase(g, now_ms);
  }
}

void rebalancer::prepare_rebalance(classic_group& g, int64_t now_ms) {
  if (g.in(group_state::completing_rebalance)) {
    reset_and_propagate_assignment(g, error_code::rebalance_in_progress, now_ms);
  }
  g.members().clear_pending_sync();
  g.sync_timer_.reset();
  bool initial = g.in(group_state::empty);
  if (initial) {
    // A new group waits a little for more members before the first generation.
    int32_t delay = ctx_.config().initial_rebalance_delay_ms;
    int32_t remaining = std::max(g.members().rebalance_timeout_ms() - delay, 0);
    g.join_timer_ = join_timer{now_ms + delay, true, delay, remaining};
  }
  g.transition_to(group_state::preparing_rebalance, now_ms);
  if (initial) return;
  if (g.members().all_joined()) {
    complete_join(g, now_ms);
  } else {
    g.join_timer_ = join_timer{now_ms + g.members().rebalance_timeout_ms(), false, 0, 0};
  }
}

void rebalancer::maybe_complete_join_phase(classic_group& g, int64_t now_ms) {
  if (!g.in(group_state::preparing_rebalance)) return;
  // The initial rebalance completes on its timer only.
  if (g.previous_state() == group_state::empty) return;
  if (!g.members().all_joined()) return;
  complete_join(g, now_ms);
}

void rebalancer::on_join_timer(classic_group& g, int64_t now_ms) {
  join_timer t = *g.join_timer_;
  g.join_timer_.reset();
  if (t.initial && g.new_member_added && t.remaining_ms != 0) {
    g.new_member_added = false;
    int32_t delay = std::min(ctx_.config().initial_rebalance_delay_ms, t.remaining_ms);
    int32_t remaining = std::max(t.remaining_ms - t.delay_ms, 0);
    g.join_timer_ = join_timer{now_ms + delay, true, delay, remaining};
    return;
  }
  complete_join(g, now_ms);
}

void rebalancer::complete_join(classic_group& g, int64_t now_ms) {
  g.join_timer_.reset();
  // Dynamic members that did not rejoin are out; static ones keep their place.
  std::vector<std::string> gone;
  for (const auto& [id, m] : g.members()) {
    if (!m.awaiting_join && !m.group_instance_id) gone.push_back(id);
  }
  for (const auto& id : gone) g.remove(id);
  if (g.in(group_state::dead)) return;
  if (!g.maybe_elect_joined_leader() && !g.members().empty()) {
    // Nobody rejoined: wait another rebalance timeout for session expiry to
    // clear the group.
    g.join_timer_ = join_timer{now_ms + g.members().rebalance_timeout_ms(), false, 0, 0};
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
    group_member& m = *g.members().find(id);
    g.complete_join(m, join_response(g, id, g.is_leader(id)), ctx_.completions());
    reschedule_heartbeat(m, now_ms, m.session_timeout_ms);
    m.is_new = false;
    g.members().add_pending_sync(id);
  }
  g.sync_timer_ = sync_timer{now_ms + g.members().rebalance_timeout_ms(), g.generation()};
}

void rebalancer::reset_and_propagate_assignment(classic_group& g, error_code error, int64_t now_ms) {
  assert(g.in(group_state::completing_rebalance));
  for (const auto& [id, _] : g.members()) g.members().find(id)->assignment.clear();
  propagate_assignment(g, error, now_ms);
}

void rebalancer::propagate_assignment(classic_group& g, error_code error, int64_t now_ms) {
  for (const auto& [id, _] : g.members()) {
    group_member& m = *g.members().find(id);
    msg::sync_group_response r;
    r.error_code = static_cast<int16_t>(error);
    r.assignment = m.assignment;
    if (error == error_code::none) {
      r.protocol_name = g.protocol_name();
      r.protocol_type = g.protocol_type();
    }
    // A session that expired while the member waited was ignored; it
    // starts again from here.
    if (g.complete_sync(m, std::move(r), ctx_.completions())) {
      reschedule_heartbeat(m, now_ms, m.session_timeout_ms);
    }
  }
}

void rebalancer::expire_member(classic_group& g, const std::string& member_id, int64_t now_ms) {
  if (g.in(group_state::dead)) return;
  group_member* m = g.members().find(member_id);
  if (!m || m->has_satisfied_heartbeat()) return;
  remove_member_and_update(g, member_id, now_ms);
}

void rebalancer::remove_member_and_update(classic_group& g, const std::string& member_id, int64_t now_ms) {
  group_member& m = *g.members().find(member_id);
  // A new member may time out while parked in JoinGroup: it hears
  // UNKNOWN_MEMBER_ID and may join again.
  msg::join_group_response r;
  r.error_code = static_cast<int16_t>(error_code::unknown_member_id);
  if (m.awaiting_join && m.awaiting_join->version < 7) r.protocol_name = "";
  else r.protocol_name.reset();
  g.complete_join(m, std::move(r), ctx_.completions());
  g.remove(member_id);
  if (g.in(group_state::stable) || g.in(group_state::completing_rebalance)) {
    maybe_prepare_rebalance_or_complete_join(g, now_ms);
  } else if (g.in(group_state::preparing_rebalance) && g.members().all_joined()) {
    complete_join(g, now_ms);
  }
}

void rebalancer::expire_pending_sync(classic_group& g, int64_t now_ms) {
  sync_timer t = *g.sync_timer_;
  g.sync_timer_.reset();
  if (t.generation != g.generation()) return;
  if (!g.in(group_state::completing_rebalance) && !g.in(group_state::stable)) return;
  if (g.members().pending_sync().empty()) return;
  std::vector<std::string> laggards(g.members().pending_sync().begin(), g.members().pending_sync().end());
  for (const auto& id : laggards) {
    group_member* m = g.members().find(id);
    if (m) {
      g.complete_sync(*m, sync_error(error_code::unknown_member_id),
                      ctx_.completions());
    }
    g.remove(id);
  }
  prepare_rebalance(g, now_ms);
}

void rebalancer::remove_pending_sync(classic_group& g, std::string_view member_id) {
  g.members().remove_pending_sync(member_id);
  switch (g.state()) {
    case group_state::dead:
    case group_state::empty:
    case group_state::preparing_rebalance:
      g.sync_timer_.reset();
      break;
    case group_state::completing_rebalance:
    case group_state::stable:
      if (g.members().pending_sync().empty()) g.sync_timer_.reset();
      break;
  }
}


// --- timers ------------------------------------------------------------------------

namespace {

// The earliest due timer of a group.
struct due_event {
  enum kind { pending_member, member, join, sync } what;
  int64_t at;
  std::string member_id;
};

constexpr int max_events_per_group_tick = 10000;

std::optional<due_event> earliest(const classic_group& g) {
  std::optional<due_event> best;
  auto consider = [&](due_event e) {
    if (!best || e.at < best->at) best = std::move(e);
  };
  for (const auto& [id, at] : g.members().pending_members()) consider({due_event::pending_member, at, id});
  for (const auto& [id, m] : g.members()) {
    if (m.heartbeat_deadline_ms) consider({due_event::member, *m.heartbeat_deadline_ms, id});
  }
  if (g.join_timer_) consider({due_event::join, g.join_timer_->deadline_ms, {}});
  if (g.sync_timer_) consider({due_event::sync, g.sync_timer_->deadline_ms, {}});
  return best;
}

}  // namespace

void rebalancer::run_timers(classic_group& g, int64_t now_ms) {
  // Each event removes or pushes back its timer, so a coarse tick does not
  // stretch timers that re-arm themselves; the bound only guards against a
  // zero-length timer re-arming forever.
  for (int fired = 0; fired < max_events_per_group_tick; ++fired) {
    auto e = earliest(g);
    if (!e || e->at > now_ms) return;
    int64_t at = e->at;
    switch (e->what) {
      case due_event::pending_member:
        g.remove(e->member_id);
        if (g.in(group_state::preparing_rebalance) && g.members().all_joined()) complete_join(g, at);
        break;
      case due_event::member:
        g.members().find(e->member_id)->heartbeat_deadline_ms.reset();
        expire_member(g, e->member_id, at);
        break;
      case due_event::join:
        on_join_timer(g, at);
        break;
      case due_event::sync:
        expire_pending_sync(g, at);
        break;
    }
  }
}

std::optional<int64_t> rebalancer::next_deadline_ms(const classic_group& g) {
  auto e = earliest(g);
  if (!e) return std::nullopt;
  return e->at;
}

}  // namespace hw::broker::group
