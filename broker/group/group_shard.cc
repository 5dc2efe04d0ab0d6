#include "broker/group/group_shard.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cstdio>

#include "broker/coordinator_log/append_errors.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

error_code append_error_to_response_error(error_code append_error) {
  return coordinator_error_of_append(append_error);
}

group_shard::group_shard(group_config config, random_source random)
    : config_(config), random_(std::move(random)) {
  assert(random_);
}

error_code group_shard::unavailable_error() const {
  switch (mode_) {
    case mode::inactive: return error_code::not_coordinator;
    case mode::loading: return error_code::coordinator_load_in_progress;
    case mode::active: return error_code::none;
  }
  return error_code::not_coordinator;
}

classic_group* group_shard::group(std::string_view group_id) {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

const classic_group* group_shard::find_group(std::string_view group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

classic_group& group_shard::get_or_create(std::string_view group_id, int64_t now_ms) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) {
    it = groups_.emplace(std::string(group_id), classic_group(std::string(group_id), now_ms)).first;
  }
  return it->second;
}

void group_shard::append(std::vector<coordinator_record> records, append_callback done, int64_t producer_id,
                         int16_t producer_epoch, std::optional<uint64_t> verification) {
  assert(!records.empty());
  append_token token = next_append_++;
  output_.appends.push_back({token, std::move(records), producer_id, producer_epoch, verification});
  in_flight_.emplace(token, std::move(done));
}

void group_shard::reply(request_token token, shard_response response) {
  output_.completions.push_back({token, std::move(response)});
}

shard_output group_shard::take_output() {
  shard_output out;
  std::swap(out, output_);
  return out;
}

// Kafka's form: client.id (or group.instance.id) + "-" + a random UUID in
// its 8-4-4-4-12 hex text.
std::string group_shard::new_member_id(std::string_view client_id,
                                       const std::optional<std::string>& instance_id) {
  uint64_t hi = random_();
  uint64_t lo = random_();
  hi = (hi & ~0xf000ULL) | 0x4000ULL;                   // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // IETF variant
  char text[37];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  std::string prefix = instance_id ? *instance_id : std::string(client_id);
  return prefix + "-" + text;
}

// --- load / unload -----------------------------------------------------------

void group_shard::begin_load() {
  assert(mode_ == mode::inactive);
  groups_.clear();
  offsets_.clear();
  txn_offsets_.clear();
  mode_ = mode::loading;
}

bool group_shard::load(const loaded_record& record) {
  assert(mode_ == mode::loading);
  auto decoded = decode_record(record.key, record.value);
  if (!decoded) return false;
  if (auto* g = std::get_if<group_record>(&*decoded)) replay_group(*g);
  if (auto* o = std::get_if<offset_record>(&*decoded)) replay_offset(*o, record.producer_id);
  return true;
}

void group_shard::replay_group(const group_record& record) {
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

void group_shard::replay_offset(const offset_record& record, int64_t producer_id) {
  if (!record.value) {
    offsets_.erase(record.group, record.topic, record.partition);
    txn_offsets_.erase(record.group, record.topic, record.partition);
    return;
  }
  // An offset of an unknown group makes it exist (a simple consumer's).
  get_or_create(record.group, 0);
  if (producer_id >= 0) {
    txn_offsets_.put(producer_id, {record.group, record.topic, record.partition, *record.value});
    return;
  }
  offsets_.put(record.group, record.topic, record.partition, *record.value);
  txn_offsets_.supersede(record.group, record.topic, record.partition);
}

void group_shard::on_txn_marker(int64_t producer_id, bool commit) {
  auto entries = txn_offsets_.close(producer_id);
  if (!commit) return;
  for (auto& e : entries) offsets_.put(e.group, e.topic, e.partition, std::move(e.value));
}

void group_shard::end_load(int64_t now_ms) {
  assert(mode_ == mode::loading);
  mode_ = mode::active;
  for (auto& [id, g] : groups_) {
    for (auto& [mid, m] : g.members()) {
      group_member* member = g.member(mid);
      reschedule_heartbeat(*member, now_ms, member->session_timeout_ms);
    }
    // A group loaded over a lowered group.max.size rebalances so that its
    // members get a chance to commit before some are turned away.
    if (static_cast<int64_t>(g.size()) > config_.max_size) prepare_rebalance(g, now_ms);
  }
  next_retention_check_ms_ = now_ms + config_.offsets_retention_check_interval_ms;
}

void group_shard::unload() {
  // From here on every answer, including those of parked and in-flight
  // requests, is NOT_COORDINATOR.
  mode_ = mode::inactive;
  for (auto& [id, g] : groups_) {
    g.transition_to(group_state::dead, g.state_timestamp_ms().value_or(0));
    for (auto& [mid, cm] : g.members()) {
      group_member* m = g.member(mid);
      switch (g.previous_state()) {
        case group_state::preparing_rebalance: {
          msg::join_group_response r;
          r.member_id = mid;
          r.error_code = static_cast<int16_t>(error_code::not_coordinator);
          g.complete_join(*m, std::move(r), output_.completions);
          break;
        }
        case group_state::completing_rebalance:
        case group_state::stable: {
          msg::sync_group_response r;
          r.error_code = static_cast<int16_t>(error_code::not_coordinator);
          g.complete_sync(*m, std::move(r), output_.completions);
          break;
        }
        default: break;
      }
    }
  }
  auto in_flight = std::move(in_flight_);
  in_flight_.clear();
  for (auto& [token, done] : in_flight) done(error_code::not_leader_or_follower, 0);
  auto fetches = std::move(stable_fetches_);
  stable_fetches_.clear();
  for (auto& f : fetches) f.answer();
  groups_.clear();
  offsets_.clear();
  txn_offsets_.clear();
  next_retention_check_ms_.reset();
}

// --- durability ----------------------------------------------------------------

void group_shard::on_append_done(append_token token, error_code error, int64_t now_ms) {
  auto it = in_flight_.find(token);
  if (it == in_flight_.end()) return;  // dropped by unload
  append_callback done = std::move(it->second);
  in_flight_.erase(it);
  done(error, now_ms);
  // A require_stable fetch goes once everything written before it is done.
  auto ready = [&](const stable_fetch& f) { return in_flight_.empty() || in_flight_.begin()->first > f.after; };
  std::vector<stable_fetch> still_waiting;
  std::vector<stable_fetch> go;
  for (auto& f : stable_fetches_) (ready(f) ? go : still_waiting).push_back(std::move(f));
  stable_fetches_ = std::move(still_waiting);
  for (auto& f : go) f.answer();
}

// --- timers ----------------------------------------------------------------------

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
  for (const auto& [id, at] : g.pending_members()) consider({due_event::pending_member, at, id});
  for (const auto& [id, m] : g.members()) {
    if (m.heartbeat_deadline_ms) consider({due_event::member, *m.heartbeat_deadline_ms, id});
  }
  if (g.join_timer_) consider({due_event::join, g.join_timer_->deadline_ms, {}});
  if (g.sync_timer_) consider({due_event::sync, g.sync_timer_->deadline_ms, {}});
  return best;
}

}  // namespace

void group_shard::tick(int64_t now_ms) {
  if (mode_ != mode::active) return;
  std::vector<std::string> ids;
  ids.reserve(groups_.size());
  for (const auto& [id, _] : groups_) ids.push_back(id);
  for (const auto& id : ids) {
    // Timers fire in deadline order, each at its own deadline (so a coarse
    // tick does not stretch timers that re-arm themselves). Each event
    // removes or pushes back its timer; the bound only guards against a
    // zero-length timer re-arming forever.
    for (int fired = 0; fired < max_events_per_group_tick; ++fired) {
      classic_group* g = group(id);
      if (!g) break;
      auto e = earliest(*g);
      if (!e || e->at > now_ms) break;
      int64_t at = e->at;
      switch (e->what) {
        case due_event::pending_member:
          g->remove(e->member_id);
          if (g->in(group_state::preparing_rebalance) && g->all_members_joined()) complete_join(*g, at);
          break;
        case due_event::member:
          g->member(e->member_id)->heartbeat_deadline_ms.reset();
          expire_member(*g, e->member_id, at);
          break;
        case due_event::join:
          on_join_timer(*g, at);
          break;
        case due_event::sync:
          expire_pending_sync(*g, at);
          break;
      }
    }
  }
  if (next_retention_check_ms_ && *next_retention_check_ms_ <= now_ms) {
    expire_offsets(now_ms);
    next_retention_check_ms_ = now_ms + config_.offsets_retention_check_interval_ms;
  }
}

std::optional<int64_t> group_shard::next_deadline_ms() const {
  if (mode_ != mode::active) return std::nullopt;
  std::optional<int64_t> best = next_retention_check_ms_;
  for (const auto& [_, g] : groups_) {
    if (auto e = earliest(g); e && (!best || e->at < *best)) best = e->at;
  }
  return best;
}

// --- read-only admin -------------------------------------------------------------

std::vector<msg::describe_groups_response::described_group> group_shard::describe_groups(
    const std::vector<std::string>& group_ids) const {
  std::vector<msg::describe_groups_response::described_group> out;
  for (const auto& id : group_ids) {
    msg::describe_groups_response::described_group d;
    d.group_id = id;
    if (mode_ != mode::active) {
      d.error_code = static_cast<int16_t>(unavailable_error());
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

namespace {

std::string lower_trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

error_code group_shard::list_groups(const std::vector<std::string>& states_filter,
                                    const std::vector<std::string>& types_filter,
                                    std::vector<msg::list_groups_response::listed_group>& out) const {
  if (mode_ != mode::active) return unavailable_error();
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

}  // namespace hw::broker::group
