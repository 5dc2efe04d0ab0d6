#include "broker/group/group_metadata_manager.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "broker/group/lower_trimmed.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

group_metadata_manager::group_metadata_manager(shard_context& context, const offset_store& committed,
                                               random_source random)
    : ctx_(context), committed_(committed), random_(std::move(random)), rebalance_(context) {}

classic_group* group_metadata_manager::group(std::string_view group_id) {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

const classic_group* group_metadata_manager::find_group(std::string_view group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

classic_group& group_metadata_manager::get_or_create(std::string_view group_id, int64_t now_ms) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) {
    it = groups_.emplace(std::string(group_id), classic_group(std::string(group_id), now_ms)).first;
  }
  return it->second;
}

void group_metadata_manager::erase(std::string_view group_id) {
  if (auto it = groups_.find(group_id); it != groups_.end()) groups_.erase(it);
}

// --- load / unload -----------------------------------------------------------

void group_metadata_manager::replay(const group_record& record) {
  if (!record.value) {
    groups_.erase(record.group);
    return;
  }
  const auto& v = *record.value;
  classic_group g(record.group, 0);
  std::optional<std::string> type;
  if (!v.protocol_type.empty()) type = v.protocol_type;
  std::optional<int64_t> ts;
  if (v.current_state_timestamp != -1) ts = v.current_state_timestamp;
  g.restore(v.generation, type, v.protocol, v.leader, ts,
            v.members.empty() ? group_state::empty : group_state::stable);
  for (const auto& pm : v.members) {
    group_member m;
    m.member_id = pm.member_id;
    m.group_instance_id = pm.group_instance_id;
    m.client_id = pm.client_id;
    m.client_host = pm.client_host;
    m.session_timeout_ms = pm.session_timeout;
    m.rebalance_timeout_ms = pm.rebalance_timeout == -1 ? pm.session_timeout : pm.rebalance_timeout;
    m.protocol_type = v.protocol_type;
    m.protocols = {member_protocol{v.protocol.value_or(""), pm.subscription}};
    m.assignment = pm.assignment;
    g.add(std::move(m), std::nullopt);
  }
  g.refresh_subscribed_topics();
  groups_.insert_or_assign(record.group, std::move(g));
}

void group_metadata_manager::activate(int64_t now_ms) {
  for (auto& [id, g] : groups_) {
    for (auto& [mid, m] : g.members()) {
      group_member* member = g.members().find(mid);
      reschedule_heartbeat(*member, now_ms, member->session_timeout_ms);
    }
    // A group loaded over a lowered group.max.size rebalances so that its
    // members get a chance to commit before some are turned away.
    if (static_cast<int64_t>(g.members().size()) > ctx_.config().max_size) rebalance_.prepare_rebalance(g, now_ms);
  }
}

void group_metadata_manager::answer_parked_not_coordinator() {
  for (auto& [id, g] : groups_) {
    g.transition_to(group_state::dead, g.state_timestamp_ms().value_or(0));
    for (auto& [mid, cm] : g.members()) {
      group_member* m = g.members().find(mid);
      switch (g.previous_state()) {
        case group_state::preparing_rebalance: {
          msg::join_group_response r;
          r.member_id = mid;
          r.error_code = static_cast<int16_t>(error_code::not_coordinator);
          g.complete_join(*m, std::move(r), ctx_.completions());
          break;
        }
        case group_state::completing_rebalance:
        case group_state::stable: {
          msg::sync_group_response r;
          r.error_code = static_cast<int16_t>(error_code::not_coordinator);
          g.complete_sync(*m, std::move(r), ctx_.completions());
          break;
        }
        default: break;
      }
    }
  }
}

// --- SyncGroup of the leader --------------------------------------------------------

// Members the leader left out get an empty assignment.
void group_metadata_manager::store_leader_assignment(classic_group& g, const msg::sync_group_request& request) {
  std::map<std::string, std::vector<uint8_t>, std::less<>> assignment;
  for (const auto& a : request.assignments) assignment[a.member_id] = a.assignment;
  for (const auto& [mid, _] : g.members()) assignment.try_emplace(mid);
  std::string group_id = g.group_id();
  int32_t generation = request.generation_id;
  auto value = g.record_value(&assignment);
  auto done = [this, group_id, generation, assignment = std::move(assignment)](error_code e, int64_t done_ms) {
    classic_group* cg = group(group_id);
    // A member may have joined meanwhile: only this generation's sync counts.
    if (!cg || !cg->in(group_state::completing_rebalance) || cg->generation() != generation) return;
    if (e != error_code::none) {
      rebalance_.reset_and_propagate_assignment(*cg, append_error_to_response_error(e), done_ms);
      rebalance_.maybe_prepare_rebalance_or_complete_join(*cg, done_ms);
      return;
    }
    for (const auto& [mid, _] : cg->members()) {
      auto it = assignment.find(mid);
      cg->members().find(mid)->assignment = it == assignment.end() ? std::vector<uint8_t>{} : it->second;
    }
    rebalance_.propagate_assignment(*cg, error_code::none, done_ms);
    cg->transition_to(group_state::stable, done_ms);
  };
  ctx_.append({group_metadata_record(group_id, value)}, std::move(done));
}

// --- timers ------------------------------------------------------------------------

void group_metadata_manager::tick(int64_t now_ms) {
  for (auto& [id, g] : groups_) rebalance_.run_timers(g, now_ms);
}

std::optional<int64_t> group_metadata_manager::next_deadline_ms() const {
  std::optional<int64_t> best;
  for (const auto& [_, g] : groups_) {
    if (auto at = rebalancer::next_deadline_ms(g); at && (!best || *at < *best)) best = at;
  }
  return best;
}

// --- read-only admin -------------------------------------------------------------

std::vector<msg::describe_groups_response::described_group> group_metadata_manager::describe_groups(
    const std::vector<std::string>& group_ids) const {
  std::vector<msg::describe_groups_response::described_group> out;
  for (const auto& id : group_ids) {
    msg::describe_groups_response::described_group d;
    d.group_id = id;
    if (!ctx_.active()) {
      d.error_code = static_cast<int16_t>(ctx_.unavailable_error());
      out.push_back(std::move(d));
      continue;
    }
    const classic_group* g = find_group(id);
    if (!g) {
      d.group_state = std::string(state_name(group_state::dead));
      out.push_back(std::move(d));
      continue;
    }
    d.group_state = std::string(state_name(g->state()));
    d.protocol_type = g->protocol_type().value_or("");
    bool stable = g->in(group_state::stable);
    if (stable) d.protocol_data = g->protocol_name().value_or("");
    for (const auto& [mid, m] : g->members()) {
      msg::describe_groups_response::described_group_member dm;
      dm.member_id = mid;
      dm.group_instance_id = m.group_instance_id;
      dm.client_id = m.client_id;
      dm.client_host = m.client_host;
      dm.member_assignment = m.assignment;
      if (stable && g->protocol_name()) {
        if (const auto* md = m.metadata(*g->protocol_name())) dm.member_metadata = *md;
      }
      d.members.push_back(std::move(dm));
    }
    out.push_back(std::move(d));
  }
  return out;
}


error_code group_metadata_manager::list_groups(const std::vector<std::string>& states_filter,
                                    const std::vector<std::string>& types_filter,
                                    std::vector<msg::list_groups_response::listed_group>& out) const {
  if (!ctx_.active()) return ctx_.unavailable_error();
  std::vector<std::string> states;
  for (const auto& s : states_filter) states.push_back(lower_trimmed(s));
  bool classic_wanted = types_filter.empty();
  for (const auto& t : types_filter) classic_wanted |= lower_trimmed(t) == "classic";
  if (!classic_wanted) return error_code::none;
  for (const auto& [id, g] : groups_) {
    std::string state = lower_trimmed(state_name(g.state()));
    if (!states.empty() && std::find(states.begin(), states.end(), state) == states.end()) continue;
    msg::list_groups_response::listed_group l;
    l.group_id = id;
    l.protocol_type = g.protocol_type().value_or("");
    l.group_state = std::string(state_name(g.state()));
    l.group_type = "classic";
    out.push_back(std::move(l));
  }
  return error_code::none;
}

// --- migration to and from consumer groups ---------------------------------------

consumer::classic_group_snapshot group_metadata_manager::upgrade_snapshot(const classic_group& g) const {
  consumer::classic_group_snapshot out;
  out.group_id = g.group_id();
  out.generation = g.generation();
  out.protocol_type = g.protocol_type();
  out.protocol_name = g.protocol_name();
  for (const auto& [id, m] : g.members()) {
    auto& c = out.members.emplace_back();
    c.member_id = m.member_id;
    c.instance_id = m.group_instance_id;
    c.client_id = m.client_id;
    c.client_host = m.client_host;
    c.rebalance_timeout_ms = m.rebalance_timeout_ms;
    c.session_timeout_ms = m.session_timeout_ms;
    for (const auto& p : m.protocols) c.protocols.push_back({p.name, p.metadata});
    c.assignment = m.assignment;
  }
  return out;
}

void group_metadata_manager::dissolve(std::string_view group_id, error_code error) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return;
  classic_group& g = it->second;
  std::vector<std::string> ids;
  for (const auto& [id, m] : g.members()) ids.push_back(id);
  for (const auto& id : ids) {
    group_member& m = *g.members().find(id);
    msg::join_group_response join;
    join.error_code = static_cast<int16_t>(error);
    join.member_id = m.member_id;
    join.protocol_name.reset();
    g.complete_join(m, std::move(join), ctx_.completions());
    g.complete_sync(m, sync_error(error), ctx_.completions());
  }
  groups_.erase(it);
}

coordinator_record group_metadata_manager::adopt(const consumer::downgrade& downgraded,
                                                 const consumer::topic_image_view& topics, int64_t now_ms) {
  const auto& s = downgraded.group;
  groups_.erase(s.group_id);
  classic_group& g = groups_.emplace(s.group_id, classic_group(s.group_id, now_ms)).first->second;
  g.restore(s.generation, std::string("consumer"), std::nullopt, std::nullopt, now_ms, group_state::stable);
  for (const auto& c : s.members) {
    group_member m;
    m.member_id = c.member_id;
    m.group_instance_id = c.instance_id;
    m.client_id = c.client_id;
    m.client_host = c.client_host;
    m.rebalance_timeout_ms = c.rebalance_timeout_ms;
    m.session_timeout_ms = c.session_timeout_ms;
    m.protocol_type = "consumer";
    for (const auto& p : c.protocols) m.protocols.push_back({p.name, p.metadata});
    reschedule_heartbeat(m, now_ms, m.session_timeout_ms);
    g.add(std::move(m), std::nullopt);
  }
  const std::string protocol = g.members().select_protocol();
  g.restore(s.generation, std::string("consumer"), protocol, g.leader_id(), now_ms, group_state::stable);
  for (const auto& c : s.members) {
    group_member& m = *g.members().find(c.member_id);
    const auto* metadata = m.metadata(protocol);
    auto sub = metadata ? consumer::decode_subscription(*metadata) : std::nullopt;
    m.assignment = consumer::encode_assignment(c.target, topics, sub ? sub->version : 0);
  }
  g.refresh_subscribed_topics();
  coordinator_record record = group_metadata_record(s.group_id, g.record_value(nullptr));
  if (downgraded.rebalance) rebalance_.prepare_rebalance(g, now_ms);
  return record;
}

}  // namespace hw::broker::group
