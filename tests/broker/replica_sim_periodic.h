#pragma once
// A simulated broker's periodic work and its life: registering with the
// controller, heartbeats, the leader's ISR expiration and AlterPartition
// resends, the fetcher's timeouts and next request; and flushing, crashing
// and restarting. Mirrors the timers of broker/metadata/broker_lifecycle.cc
// (registration and heartbeats), alter_partition_manager.cc (ISR
// expiration and resends), replica_fetcher.cc (request timeouts) and what
// storage keeps across a crash (synced records, the HW checkpoint).

#include "tests/broker/replica_sim.h"

namespace hw::broker::replica_sim {

inline void simulation::tick(broker& b) {
  if (!b.up) return;
  if (b.epoch.value < 0) {
    register_if_due(b);
    return;
  }
  heartbeat_if_due(b);
  if (b.leading) leader_tick(b);
  if (b.following) follower_tick(b);
}

// Until it has a broker epoch a broker only asks for one, again after
// every timeout.
inline void simulation::register_if_due(broker& b) {
  if (b.register_sent_at >= 0 && now_ - b.register_sent_at <= cfg_.request_timeout_ms) return;
  message m;
  m.kind = msg_kind::register_broker;
  m.from = b.id;
  m.to = controller_node;
  m.incarnation = b.incarnation;
  m.request_id = ++request_ids_;
  b.register_request = m.request_id;
  b.register_sent_at = now_;
  send(std::move(m));
}

inline void simulation::heartbeat_if_due(broker& b) {
  if (now_ < b.next_heartbeat) return;
  b.next_heartbeat = now_ + cfg_.heartbeat_ms;
  message m;
  m.kind = msg_kind::heartbeat;
  m.from = b.id;
  m.to = controller_node;
  m.incarnation = b.incarnation;
  m.sender_epoch = b.epoch;
  m.metadata_version = b.image.version;
  send(std::move(m));
}

inline void simulation::leader_tick(broker& b) {
  // ISR expiration, every replica.lag.time.max.ms / 2.
  if (now_ >= b.next_shrink_check) {
    b.next_shrink_check = now_ + cfg_.lag_time_max_ms / 2;
    if (auto change = b.leading->maybe_shrink(now_, b.log.end())) {
      trace("broker " + std::to_string(b.id) + " proposes shrinking the isr to " + list(change->isr));
      queue_alter(b, *change);
    }
  }
  // The change in flight may be gone (a role from the metadata log).
  if (b.alter && (!b.leading->pending() || b.leading->pending()->id != b.alter->id)) {
    b.alter.reset();
    b.alter_in_flight = false;
  }
  if (b.alter && now_ >= b.alter_send_at) send_alter(b);
}

inline void simulation::follower_tick(broker& b) {
  follower_state& s = *b.following;
  if (b.fetch_request != 0 && now_ - b.fetch_sent_at > cfg_.request_timeout_ms) {
    b.fetch_request = 0;
    s.on_request_failed(now_);
  }
  if (b.list_request != 0 && now_ - b.list_sent_at > cfg_.request_timeout_ms) {
    b.list_request = 0;
    s.on_error(error_code::network_exception, now_);
  }
  const follower_phase phase = s.phase(now_);
  if (phase == follower_phase::resetting && b.list_request == 0) send_list_offsets(b);
  else if (phase == follower_phase::fetching && b.fetch_request == 0) send_fetch(b);
}

inline void simulation::on_registered(broker& b, const message& a) {
  if (a.request_id != b.register_request || b.epoch.value >= 0) return;
  if (a.error != error_code::none) {
    b.register_sent_at = now_;  // asks again after the timeout
    return;
  }
  b.epoch = a.sender_epoch;
  b.next_heartbeat = now_;
  trace("broker " + std::to_string(b.id) + " registered with epoch " + std::to_string(b.epoch.value));
}

inline void simulation::flush_broker(broker& b) {
  if (!b.up) return;
  b.log.synced = b.log.end();
  b.hw_checkpoint = b.hw;
}

inline void simulation::crash_broker(broker& b) {
  if (!b.up) return;
  const storage::offset before = b.log.end();
  b.up = false;
  ++b.crashes;
  ++out_.s.crashes;
  if (b.log.crash()) ++out_.s.lost_tails;
  b.log_changed = true;
  b.verified = std::min(b.verified, b.log.end());
  b.leading.reset();
  b.following.reset();
  b.acks.clear();
  b.alter.reset();
  b.alter_in_flight = false;
  b.fetch_request = b.list_request = 0;
  trace("crash " + std::to_string(b.id) + ": log end " + std::to_string(before.value) + " -> " +
        std::to_string(b.log.end().value));
}

// A new incarnation: it registers again for a new broker epoch and starts
// from its recovered log and the last HW checkpoint.
inline void simulation::restart_broker(broker& b) {
  if (b.up) return;
  b.up = true;
  ++b.incarnation;
  b.epoch = storage::broker_epoch(-1);
  b.register_sent_at = -1;
  b.image = metadata_view{};
  b.applied = partition_role{};
  b.published = partition_role{};
  b.roles_enabled = false;
  b.hw = std::min(b.hw_checkpoint, b.log.end());
  b.hw_epoch = storage::leader_epoch(-1);
  b.verified = std::min(b.verified, b.hw);
  trace("restart " + std::to_string(b.id) + " with log end " + std::to_string(b.log.end().value) + " hw " +
        std::to_string(b.hw.value));
}

}  // namespace hw::broker::replica_sim
