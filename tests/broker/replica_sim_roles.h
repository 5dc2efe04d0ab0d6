#pragma once
// A simulated broker's metadata and partition roles: applying the
// controller's image in order, becoming leader or follower, starting and
// stopping the fetcher, moving the leader's HW and answering acks=all
// produces that waited for it. Mirrors broker/replica/replica_manager.cc
// (apply_metadata, roles) and broker/replica/partition.cc (become_leader,
// become_follower, maybe_advance_high_watermark, acks_done).

#include "tests/broker/replica_sim.h"

namespace hw::broker::replica_sim {

inline broker_lookup simulation::lookup_of(const broker& b) const {
  return [&b](node_id n) -> std::optional<broker_status> {
    if (n.value < 1 || n.value > 3) return std::nullopt;
    return b.image.brokers[n.value];
  };
}

inline void simulation::apply_metadata(broker& b, const metadata_view& v) {
  if (v.version <= b.image.version) return;  // the metadata log is applied in order
  b.image = v;
  // A restarted broker acts on roles only once it has its own
  // registration (Kafka's initial catch-up): the image before that may
  // still name its previous incarnation in the ISR, or as the leader.
  if (b.epoch.value < 0 || v.version < b.epoch.value) return;
  b.roles_enabled = true;
  const partition_role& r = v.role;
  if (r.leader == b.applied.leader && r.leader_epoch == b.applied.leader_epoch &&
      r.partition_epoch == b.applied.partition_epoch && r.isr == b.applied.isr)
    return;
  b.applied = r;
  apply_role(b, r);
}

inline void simulation::apply_role(broker& b, const partition_role& role) {
  const bool was_leader = b.published.leader == node_id(b.id);
  const storage::leader_epoch previous_epoch = b.published.leader_epoch;
  const node_id previous_leader = b.published.leader;
  const bool leads = role.leader == node_id(b.id);
  if (leads) unfollow(b);  // no fetched batch lands after its own writes begin
  if (leads) become_leader(b, role);
  else become_follower(b, role);
  if (!leads) {
    const bool moved = previous_epoch != role.leader_epoch || previous_leader != role.leader || was_leader;
    if (role.leader == no_node) unfollow(b);
    else if (moved || !b.following) follow(b, role.leader, role.leader_epoch);
  }
}

inline void simulation::become_leader(broker& b, const partition_role& role) {
  const bool new_epoch = !b.leading || role.leader_epoch > b.published.leader_epoch;
  if (!b.leading) b.leading.emplace(node_id(b.id), b.epoch, settings());
  if (!b.leading->on_role(role, b.log.end(), now_)) return;
  if (new_epoch) {
    b.log.assign_epoch(role.leader_epoch, b.log.end());
    b.log_changed = true;
  }
  b.published = role;
  b.published.isr = b.leading->isr();
  b.published.partition_epoch = b.leading->version();
  // A change in flight is the old state's; on_role dropped it.
  b.alter.reset();
  b.alter_in_flight = false;
  trace("broker " + std::to_string(b.id) + " leads at epoch " + std::to_string(role.leader_epoch.value) + "/" +
        std::to_string(role.partition_epoch.value) + " from offset " + std::to_string(b.log.end().value) + " isr " +
        list(b.leading->isr()) + " hw " + std::to_string(b.hw.value));
  maybe_advance_hw(b);
  check_acks(b);
}

inline void simulation::become_follower(broker& b, const partition_role& role) {
  if (role.partition_epoch < b.published.partition_epoch && role.leader_epoch <= b.published.leader_epoch) return;
  if (b.leading)
    trace("broker " + std::to_string(b.id) + " follows " + std::to_string(role.leader.value) + " at epoch " +
          std::to_string(role.leader_epoch.value));
  b.leading.reset();
  b.alter.reset();
  b.alter_in_flight = false;
  b.published = role;
  check_acks(b);  // produces waiting for acks learn that it no longer leads
}

inline void simulation::unfollow(broker& b) {
  b.following.reset();
  b.fetch_request = 0;
  b.list_request = 0;
}

inline void simulation::follow(broker& b, node_id leader, storage::leader_epoch e) {
  unfollow(b);
  b.fetch_from = leader;
  b.following.emplace(cfg_.fetch_backoff_ms);
  b.following->start(e, b.log.end(), b.log.cache.latest_epoch());
  ++b.generation;
}

// partition::maybe_advance_high_watermark
inline void simulation::maybe_advance_hw(broker& b) {
  if (!b.leading) return;
  if (auto next = b.leading->next_high_watermark(b.log.end(), b.hw, now_, lookup_of(b))) {
    b.hw = *next;
  } else if (cfg_.unsafe.hw_ignores_min_isr && b.leading->under_min_isr()) {
    // Broken on purpose: the smallest log end of the committed ISR alone.
    storage::offset h = b.log.end();
    for (node_id n : b.leading->isr())
      if (const follower_progress* f = b.leading->follower(n)) h = std::min(h, f->log_end);
    if (h > b.hw) b.hw = h;
  }
}

// Delayed acks=all produces (partition::acks_done at each wake-up).
inline void simulation::check_acks(broker& b) {
  std::vector<pending_ack> waiting;
  for (auto& p : b.acks) {
    if (!b.leading) continue;  // NOT_LEADER_OR_FOLLOWER
    auto [done, error] = b.leading->acks_done(p.required, b.hw);
    if (cfg_.unsafe.hw_ignores_min_isr && error == error_code::not_enough_replicas_after_append)
      error = error_code::none;
    if (!done) {
      waiting.push_back(std::move(p));
      continue;
    }
    if (error == error_code::none) acknowledge(b, p);
  }
  b.acks = std::move(waiting);
}

inline void simulation::acknowledge(const broker& leader, const pending_ack& p) {
  for (const auto& r : p.records) {
    acked_.push_back(r);
    ++out_.s.acked;
    // At least min ISR replicas hold it now, counting a replica that
    // crashed since it was written (a crash may take unflushed records:
    // Kafka's acks do not wait for fsync).
    int holders = 0;
    for (int i = 1; i <= 3; ++i) {
      const broker& o = brokers_[i];
      bool holds = o.up && r.at < o.log.end() && o.log.payload_at[static_cast<size_t>(r.at.value)] == r.payload;
      if (holds || o.crashes > p.crashes_at_append[static_cast<size_t>(i)]) ++holders;
    }
    if (holders < 2)
      fail("record " + std::to_string(r.payload) + " at offset " + std::to_string(r.at.value) +
           " acknowledged by broker " + std::to_string(leader.id) + " with " + std::to_string(holders) +
           " replica(s) holding it, below min.insync.replicas 2");
  }
  if (cfg_.record_trace && !p.records.empty())
    trace("broker " + std::to_string(leader.id) + " acknowledges offsets " + std::to_string(p.records.front().at.value) +
          ".." + std::to_string(p.records.back().at.value) + " (hw " + std::to_string(leader.hw.value) + ")");
}

}  // namespace hw::broker::replica_sim
