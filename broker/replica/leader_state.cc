#include "broker/replica/leader_state.h"

#include <algorithm>

namespace hw::broker {

using protocol::error_code;

namespace {

bool contains(const std::vector<node_id>& v, node_id n) { return std::find(v.begin(), v.end(), n) != v.end(); }

bool same_members(const std::vector<node_id>& a, const std::vector<node_id>& b) {
  return a.size() == b.size() && std::all_of(a.begin(), a.end(), [&](node_id n) { return contains(b, n); });
}

}  // namespace

follower_progress* leader_state::find(node_id id) {
  for (auto& f : followers_)
    if (f.id == id) return &f;
  return nullptr;
}

const follower_progress* leader_state::follower(node_id id) const {
  for (const auto& f : followers_)
    if (f.id == id) return &f;
  return nullptr;
}

bool leader_state::on_role(const partition_role& role, offset leader_log_end, int64_t now_ms) {
  const bool leading = leader_epoch_ >= storage::leader_epoch(0);
  if (leading && role.partition_epoch < partition_epoch_) return false;
  const bool new_epoch = role.leader_epoch > leader_epoch_;

  replicas_ = role.replicas;
  std::vector<follower_progress> kept;
  for (node_id r : role.replicas) {
    if (r == self_) continue;
    const follower_progress* old = follower(r);
    if (old) {
      kept.push_back(*old);
    } else {
      follower_progress fresh;
      fresh.id = r;
      kept.push_back(fresh);
    }
  }
  followers_ = std::move(kept);
  // The controller applies an AlterPartition, and the record reaches this
  // broker's metadata log, before the answer does whenever the metadata
  // fetch is answered first: the change is ours all the same.
  published_change_id_ = pending_ && !new_epoch && role.leader_epoch == pending_->leader_epoch &&
                                 role.partition_epoch > pending_->partition_epoch && same_members(role.isr, pending_->isr)
                             ? pending_->id
                             : 0;
  isr_ = role.isr;
  pending_.reset();

  if (new_epoch) {
    epoch_start_ = leader_log_end;
    for (auto& f : followers_) {
      const bool in_sync = contains(isr_, f.id);
      // In the ISR: caught up as of now, so it is not dropped before it can
      // fetch. Out of it: not holding the HW back.
      f.last_caught_up_time_ms = in_sync ? now_ms : 0;
      if (!leading) {
        // What an earlier leader knew is not ours.
        f.log_start = offset(-1);
        f.log_end = offset(-1);
        f.last_fetch_leader_log_end = offset(-1);
        f.last_fetch_time_ms = 0;
        f.epoch.reset();
      } else {
        f.last_fetch_leader_log_end = leader_log_end;
        f.last_fetch_time_ms = in_sync ? now_ms : 0;
      }
    }
    leader_epoch_ = role.leader_epoch;
  }
  partition_epoch_ = role.partition_epoch;
  return true;
}

bool leader_state::isr_eligible(const follower_progress& f, const broker_lookup& brokers) const {
  auto status = brokers ? brokers(f.id) : std::nullopt;
  if (!status || status->fenced || status->shutting_down) return false;
  if (!f.epoch) return false;
  return *f.epoch == broker_epoch(-1) || *f.epoch == status->epoch;
}

bool leader_state::in_maximal_isr(node_id id) const {
  if (contains(isr_, id)) return true;
  return pending_ && pending_->what == isr_change::kind::expand && contains(pending_->changed, id);
}

std::vector<node_id> leader_state::maximal_isr() const {
  std::vector<node_id> out = isr_;
  if (pending_ && pending_->what == isr_change::kind::expand)
    for (node_id n : pending_->changed)
      if (!contains(out, n)) out.push_back(n);
  return out;
}

int32_t leader_state::effective_min_isr() const {
  return std::min<int32_t>(settings_.min_insync_replicas, static_cast<int32_t>(followers_.size()) + 1);
}

isr_change leader_state::propose(isr_change::kind what, std::vector<node_id> isr, std::vector<node_id> changed) {
  isr_change c;
  c.what = what;
  c.id = next_change_id_++;
  c.leader_epoch = leader_epoch_;
  c.partition_epoch = partition_epoch_;
  for (node_id n : isr) {
    const follower_progress* f = follower(n);
    c.broker_epochs.push_back(n == self_ ? self_epoch_ : f && f->epoch ? *f->epoch : broker_epoch(-1));
  }
  c.isr = std::move(isr);
  c.changed = std::move(changed);
  pending_ = c;
  return c;
}

follower_fetch_outcome leader_state::on_follower_fetch(node_id follower_id, offset fetch_offset,
                                                       offset follower_log_start, broker_epoch epoch, int64_t now_ms,
                                                       offset leader_log_end, offset high_watermark,
                                                       const broker_lookup& brokers) {
  follower_fetch_outcome out;
  follower_progress* f = find(follower_id);
  if (!f) {
    // Not a replica at this leader epoch (yet): the follower retries.
    out.error = error_code::unknown_leader_epoch;
    return out;
  }
  // A fetch from an earlier incarnation of the broker does not count.
  if (epoch != broker_epoch(-1)) {
    auto status = brokers ? brokers(follower_id) : std::nullopt;
    if (status && !status->fenced && status->epoch > epoch) {
      out.error = error_code::not_leader_or_follower;
      return out;
    }
  }
  const offset previous_end = f->log_end;
  if (fetch_offset >= leader_log_end) {
    f->last_caught_up_time_ms = std::max(f->last_caught_up_time_ms, now_ms);
  } else if (fetch_offset >= f->last_fetch_leader_log_end) {
    f->last_caught_up_time_ms = std::max(f->last_caught_up_time_ms, f->last_fetch_time_ms);
  }
  f->log_start = follower_log_start;
  f->log_end = fetch_offset;
  f->last_fetch_leader_log_end = std::max(leader_log_end, f->last_fetch_leader_log_end);
  f->last_fetch_time_ms = now_ms;
  f->epoch = epoch;
  out.log_end_moved = previous_end != f->log_end;

  // Back in sync: at the HW and within this leader's epoch (a replica that
  // has not fetched this epoch's first offset could lead without the
  // records between the HW and the log end).
  if (!pending_ && !contains(isr_, follower_id) && isr_eligible(*f, brokers) && f->log_end >= high_watermark &&
      f->log_end >= epoch_start_) {
    std::vector<node_id> isr = isr_;
    isr.push_back(follower_id);
    out.expand = propose(isr_change::kind::expand, std::move(isr), {follower_id});
  }
  out.in_sync = in_maximal_isr(follower_id);
  return out;
}

std::optional<isr_change> leader_state::maybe_shrink(int64_t now_ms, offset leader_log_end) {
  if (pending_) return std::nullopt;
  std::vector<node_id> leaving;
  for (node_id r : isr_) {
    if (r == self_) continue;
    const follower_progress* f = follower(r);
    if (!f || !f->caught_up(leader_log_end, now_ms, settings_.replica_lag_time_max_ms)) leaving.push_back(r);
  }
  if (leaving.empty()) return std::nullopt;
  std::vector<node_id> isr;
  for (node_id r : isr_)
    if (!contains(leaving, r)) isr.push_back(r);
  return propose(isr_change::kind::shrink, std::move(isr), std::move(leaving));
}

std::optional<offset> leader_state::next_high_watermark(offset leader_log_end, offset current, int64_t now_ms,
                                                        const broker_lookup& brokers) const {
  if (under_min_isr()) return std::nullopt;
  offset hw = leader_log_end;
  for (const auto& f : followers_) {
    if (f.log_end >= hw) continue;
    // A follower about to join holds the HW too, so that it can catch up
    // to it rather than chase a leader that runs ahead alone.
    if (in_maximal_isr(f.id) ||
        (f.caught_up(leader_log_end, now_ms, settings_.replica_lag_time_max_ms) && isr_eligible(f, brokers)))
      hw = f.log_end;
  }
  if (hw > current) return hw;
  return std::nullopt;
}

std::pair<bool, error_code> leader_state::acks_done(offset required, offset high_watermark) const {
  if (high_watermark < required) return {false, error_code::none};
  // Appended while the ISR was large enough; it may have shrunk since.
  if (static_cast<int32_t>(maximal_isr().size()) < effective_min_isr())
    return {true, error_code::not_enough_replicas_after_append};
  return {true, error_code::none};
}

alter_outcome leader_state::on_alter_answer(uint64_t change_id, const alter_partition_answer& answer) {
  if (!pending_ || pending_->id != change_id) {
    if (change_id == published_change_id_ && answer.error == error_code::none) {
      published_change_id_ = 0;
      return alter_outcome::published;
    }
    return alter_outcome::stale;
  }
  switch (answer.error) {
    case error_code::none:
      // An answer about another leader epoch or an older version: the
      // change stays pending until the metadata log settles it.
      if (answer.leader_epoch != leader_epoch_ || answer.partition_epoch < partition_epoch_)
        return alter_outcome::await_metadata;
      isr_ = answer.isr;
      partition_epoch_ = answer.partition_epoch;
      pending_.reset();
      return alter_outcome::committed;
    case error_code::operation_not_attempted:
    case error_code::ineligible_replica:
      // The controller says the request was not applied and our partition
      // epoch is current: safe to go back to the committed state.
      pending_.reset();
      return alter_outcome::reverted;
    case error_code::unknown_topic_or_partition:
    case error_code::unknown_topic_id:
    case error_code::fenced_leader_epoch:
    case error_code::invalid_update_version:
    case error_code::invalid_request:
    case error_code::new_leader_elected:
      return alter_outcome::await_metadata;
    default:
      return alter_outcome::retry;
  }
}

std::string leader_state::describe(node_id id) const {
  const follower_progress* f = follower(id);
  if (!f) return "(brokerId: " + std::to_string(id.value) + ", endOffset: unknown, lastCaughtUpTimeMs: unknown)";
  return "(brokerId: " + std::to_string(id.value) + ", endOffset: " + std::to_string(f->log_end.value) +
         ", lastCaughtUpTimeMs: " + std::to_string(f->last_caught_up_time_ms) + ")";
}

}  // namespace hw::broker
