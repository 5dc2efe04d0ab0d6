// task_reconciliation: one step of a streams-group member towards its
// target (see task_reconciliation.h).
#include "broker/group/streams/task_reconciliation.h"

#include <algorithm>

namespace hw::broker::group::streams {

using protocol::error_code;

streams_member_state streams_member_state_from_value(int8_t value) {
  switch (value) {
    case 1: return streams_member_state::stable;
    case 2: return streams_member_state::unrevoked_tasks;
    case 3: return streams_member_state::unreleased_tasks;
    default: return streams_member_state::unknown;
  }
}

namespace {

template <class Held>
bool intersects(const task_set& mine, const std::map<std::string, Held>& other) {
  for (const auto& [id, partitions] : mine) {
    auto it = other.find(id);
    if (it == other.end()) continue;
    for (int32_t p : partitions)
      if (it->second.count(p)) return true;
  }
  return false;
}

using unreleased = std::function<bool(const std::string&, int32_t)>;

// Kept, to revoke and to be given, for standby or warm-up tasks; whether a
// task to be given is still held elsewhere.
bool difference(const task_set& current, const task_set& target, task_set& kept, task_set& revoke, task_set& give,
                const unreleased& held) {
  bool waiting = false;
  std::set<std::string> ids;
  for (const auto& [id, p] : current) ids.insert(id);
  for (const auto& [id, p] : target) ids.insert(id);
  for (const auto& id : ids) {
    static const std::set<int32_t> none;
    const auto& cur = current.count(id) ? current.at(id) : none;
    const auto& tgt = target.count(id) ? target.at(id) : none;
    std::set<int32_t> k, r, g;
    for (int32_t p : cur) (tgt.count(p) ? k : r).insert(p);
    for (int32_t p : tgt)
      if (!k.count(p)) {
        if (held(id, p)) waiting = true;
        else g.insert(p);
      }
    if (!k.empty()) kept[id] = std::move(k);
    if (!r.empty()) revoke[id] = std::move(r);
    if (!g.empty()) give[id] = std::move(g);
  }
  return waiting;
}

// The same for active tasks, each kept with its epoch, each given at the
// target's.
bool difference(const task_epochs& current, const task_set& target, int32_t target_epoch, task_epochs& kept,
                task_epochs& revoke, task_epochs& give, const unreleased& held) {
  bool waiting = false;
  std::set<std::string> ids;
  for (const auto& [id, p] : current) ids.insert(id);
  for (const auto& [id, p] : target) ids.insert(id);
  for (const auto& id : ids) {
    static const std::map<int32_t, int32_t> none_epochs;
    static const std::set<int32_t> none;
    const auto& cur = current.count(id) ? current.at(id) : none_epochs;
    const auto& tgt = target.count(id) ? target.at(id) : none;
    std::map<int32_t, int32_t> k, r, g;
    for (const auto& [p, e] : cur) (tgt.count(p) ? k : r)[p] = e;
    for (int32_t p : tgt)
      if (!k.count(p)) {
        if (held(id, p)) waiting = true;
        else g[p] = target_epoch;
      }
    if (!k.empty()) kept[id] = std::move(k);
    if (!r.empty()) revoke[id] = std::move(r);
    if (!g.empty()) give[id] = std::move(g);
  }
  return waiting;
}

tasks_with_epochs merged(tasks_with_epochs a, const tasks_with_epochs& b) {
  for (const auto& [id, epochs] : b.active)
    for (const auto& [p, e] : epochs) a.active[id][p] = e;
  for (const auto& [id, ps] : b.standby) a.standby[id].insert(ps.begin(), ps.end());
  for (const auto& [id, ps] : b.warmup) a.warmup[id].insert(ps.begin(), ps.end());
  return a;
}

streams_member with_epoch(streams_member m, int32_t epoch) {
  m.previous_epoch = m.epoch;
  m.epoch = epoch;
  return m;
}

streams_member next_assignment(const streams_member& member, const task_reconciliation_input& in, int32_t epoch) {
  const std::string& process = member.process_id;
  const auto& owners = in.owners;
  const unreleased active_held = [&](const std::string& id, int32_t p) {
    return owners.active_process(id, p).has_value() || owners.standby_processes(id, p).count(process) ||
           owners.warmup_processes(id, p).count(process);
  };
  const unreleased other_held = [&](const std::string& id, int32_t p) {
    return owners.active_process(id, p) == process || owners.standby_processes(id, p).count(process) ||
           owners.warmup_processes(id, p).count(process);
  };
  tasks_with_epochs kept, revoke, give;
  bool waiting = difference(member.assigned.active, in.target.active, in.target_epoch, kept.active, revoke.active,
                            give.active, active_held);
  waiting |= difference(member.assigned.standby, in.target.standby, kept.standby, revoke.standby, give.standby, other_held);
  waiting |= difference(member.assigned.warmup, in.target.warmup, kept.warmup, revoke.warmup, give.warmup, other_held);

  streams_member next = member;
  const bool to_revoke = !revoke.empty() && (!in.owned || in.owned->contains_any(revoke));
  if (to_revoke) {
    next = with_epoch(member, epoch);
    next.state = streams_member_state::unrevoked_tasks;
    next.assigned = kept;
    next.pending_revocation = revoke;
    return next;
  }
  next = with_epoch(member, in.target_epoch);
  next.pending_revocation = {};
  next.state = waiting ? streams_member_state::unreleased_tasks : streams_member_state::stable;
  next.assigned = give.empty() ? kept : merged(kept, give);
  return next;
}

}  // namespace

bool tasks_tuple::contains_any(const tasks_with_epochs& other) const {
  return intersects(active, other.active) || intersects(standby, other.standby) || intersects(warmup, other.warmup);
}

task_reconciliation reconcile_tasks(const streams_member& member, const task_reconciliation_input& in) {
  task_reconciliation out;
  switch (member.state) {
    case streams_member_state::stable:
      out.next = member.epoch != in.target_epoch ? next_assignment(member, in, member.epoch) : member;
      return out;
    case streams_member_state::unrevoked_tasks:
      if (!in.owned || in.owned->contains_any(member.pending_revocation)) {
        out.next = member;
        return out;
      }
      out.next = next_assignment(member, in, member.epoch + 1);
      return out;
    case streams_member_state::unreleased_tasks:
      out.next = next_assignment(member, in, member.epoch);
      return out;
    case streams_member_state::unknown:
      if (!in.owned || !in.owned->empty()) {
        out.error = error_code::fenced_member_epoch;
        out.error_message = "The streams group member is in a unknown state. The member must abandon all its tasks "
                            "and rejoin.";
        out.next = member;
        return out;
      }
      out.next = next_assignment(member, in, in.target_epoch);
      return out;
  }
  out.next = member;
  return out;
}

}  // namespace hw::broker::group::streams
