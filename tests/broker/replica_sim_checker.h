#pragma once
// The simulation's checker: the invariants listed in replica_sim.h, held
// after every step and at the end, whether the cluster has settled, and
// the state dump appended to a failure. No real file is mirrored: these
// are Kafka's replication guarantees for RF 3 and min ISR 2.

#include "tests/broker/replica_sim.h"

namespace hw::broker::replica_sim {

inline void simulation::check() {
  if (!out_.ok) return;
  for (int i = 1; i <= 3 && out_.ok; ++i) check_broker(brokers_[i]);
  if (out_.ok) check_acked_in_leader();
}

// 1. Acknowledged records are in the current leader's log, once it has
// taken the controller's epoch (checked once per record and leader epoch).
inline void simulation::check_acked_in_leader() {
  const int l = ctl_.reg.leader.value;
  if (l < 1) return;
  broker& b = brokers_[l];
  if (!b.up || !b.leading || b.leading->epoch() != ctl_.reg.leader_epoch) return;
  if (b.acks_checked_epoch != b.leading->epoch()) {
    b.acks_checked_epoch = b.leading->epoch();
    b.acks_checked = 0;
  }
  for (; b.acks_checked < acked_.size(); ++b.acks_checked) {
    const ack_record& r = acked_[b.acks_checked];
    if (r.at >= b.log.end() || b.log.payload_at[static_cast<size_t>(r.at.value)] != r.payload) {
      fail("acknowledged record " + std::to_string(r.payload) + " at offset " + std::to_string(r.at.value) +
           " is not in the log of leader " + std::to_string(l) + " at epoch " +
           std::to_string(ctl_.reg.leader_epoch.value) + describe());
      return;
    }
  }
}

inline void simulation::check_broker(broker& b) {
  if (!b.up) return;
  const std::string who = "broker " + std::to_string(b.id);
  if (!check_hw_bounds(b, who)) return;
  if (!check_committed_prefix(b, who)) return;
  check_epoch_cache(b, who);
}

// 3. HW bounds and monotonicity within a leader epoch; and a leader's
// records below its HW are committed from now on.
inline bool simulation::check_hw_bounds(broker& b, const std::string& who) {
  if (b.hw > b.log.end()) {
    fail(who + " has HW " + std::to_string(b.hw.value) + " above its log end " + std::to_string(b.log.end().value) +
         describe());
    return false;
  }
  if (!b.leading) {
    b.hw_epoch = storage::leader_epoch(-1);
    return true;
  }
  if (b.leading->epoch() == b.hw_epoch && b.hw < b.hw_seen) {
    fail(who + " moved its HW back from " + std::to_string(b.hw_seen.value) + " to " + std::to_string(b.hw.value) +
         " at leader epoch " + std::to_string(b.hw_epoch.value) + describe());
    return false;
  }
  b.hw_epoch = b.leading->epoch();
  b.hw_seen = b.hw;
  for (int64_t o = static_cast<int64_t>(committed_.size()); o < b.hw.value; ++o)
    committed_.push_back(b.log.payload_at[static_cast<size_t>(o)]);
  return true;
}

// 2. Below its HW, a log is made of committed records (checked once per
// offset until a truncation or crash takes the offset back).
inline bool simulation::check_committed_prefix(broker& b, const std::string& who) {
  if (b.hw.value > static_cast<int64_t>(committed_.size())) {
    fail(who + " has HW " + std::to_string(b.hw.value) + " above every leader's (" +
         std::to_string(committed_.size()) + ")" + describe());
    return false;
  }
  for (; b.verified < b.hw; ++b.verified) {
    const size_t o = static_cast<size_t>(b.verified.value);
    if (b.log.payload_at[o] != committed_[o]) {
      fail(who + " holds record " + std::to_string(b.log.payload_at[o]) + " at offset " + std::to_string(o) +
           " below its HW " + std::to_string(b.hw.value) + ", where record " + std::to_string(committed_[o]) +
           " was committed" + describe());
      return false;
    }
  }
  return true;
}

// 4. The epoch cache matches the log (checked only when either changed).
inline bool simulation::check_epoch_cache(broker& b, const std::string& who) {
  if (!b.log_changed) return true;
  b.log_changed = false;
  const auto& entries = b.log.cache.entries;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && (entries[i].epoch <= entries[i - 1].epoch || entries[i].start_offset <= entries[i - 1].start_offset)) {
      fail(who + "'s epoch cache does not strictly increase" + describe());
      return false;
    }
    if (entries[i].start_offset > b.log.end()) {
      fail(who + "'s epoch cache has epoch " + std::to_string(entries[i].epoch.value) + " starting past the log end" +
           describe());
      return false;
    }
  }
  size_t e = 0;
  for (const auto& bt : b.log.batches) {
    while (e + 1 < entries.size() && entries[e + 1].start_offset <= bt.base) ++e;
    if (entries.empty() || entries[e].start_offset > bt.base || entries[e].epoch != bt.epoch) {
      fail(who + "'s batch at " + std::to_string(bt.base.value) + " has epoch " + std::to_string(bt.epoch.value) +
           " but its epoch cache says otherwise" + describe());
      return false;
    }
  }
  return true;
}

// 1 and 5 at the end: every replica holds every acknowledged record, and
// all logs are the same.
inline void simulation::final_check() {
  if (!out_.ok) return;
  for (int i = 1; i <= 3; ++i) {
    const broker& b = brokers_[i];
    for (const auto& r : acked_) {
      if (r.at >= b.log.end() || b.log.payload_at[static_cast<size_t>(r.at.value)] != r.payload) {
        fail("at the end, acknowledged record " + std::to_string(r.payload) + " at offset " +
             std::to_string(r.at.value) + " is missing from broker " + std::to_string(i) + describe());
        return;
      }
    }
    if (b.log.batches != brokers_[1].log.batches) {
      fail("at the end, the logs of brokers 1 and " + std::to_string(i) + " differ" + describe());
      return;
    }
  }
}

// 5. The cluster has converged (run() stops there once the chaos is over).
inline bool simulation::settled() const {
  if (!ctl_.reg.has_leader() || ctl_.reg.isr.size() != 3) return false;
  const broker& l = brokers_[ctl_.reg.leader.value];
  if (!l.up || !l.leading || l.leading->epoch() != ctl_.reg.leader_epoch) return false;
  for (int i = 1; i <= 3; ++i) {
    const broker& b = brokers_[i];
    if (!b.up || ctl_.brokers[i].fenced || b.epoch != ctl_.brokers[i].epoch) return false;
    if (b.log.payload_at != l.log.payload_at || b.hw != b.log.end()) return false;
  }
  return true;
}

inline std::string simulation::describe() const {
  std::ostringstream o;
  o << "\n  controller: version " << ctl_.version << " leader " << ctl_.reg.leader << " epoch "
    << ctl_.reg.leader_epoch << " partition epoch " << ctl_.reg.partition_epoch << " isr " << list(ctl_.reg.isr);
  for (int i = 1; i <= 3; ++i) {
    const broker& b = brokers_[i];
    const auto& cb = ctl_.brokers[i];
    o << "\n  broker " << i << (b.up ? "" : " DOWN") << ": epoch " << b.epoch.value << " (controller "
      << cb.epoch.value << (cb.fenced ? ", fenced" : "") << ") image v" << b.image.version << " role "
      << (b.leading ? "leader" : "follower") << " of " << b.published.leader.value << " at epoch "
      << b.published.leader_epoch.value << "/" << b.published.partition_epoch.value;
    if (b.leading) o << " isr " << list(b.leading->isr()) << (b.leading->pending() ? " (change pending)" : "");
    if (b.following) o << " fetching " << b.following->position().fetch_offset.value << " phase " << to_string(b.following->phase(now_));
    o << "; log end " << b.log.end().value << " hw " << b.hw.value << " synced " << b.log.synced.value
      << " cache";
    for (const auto& e : b.log.cache.entries) o << " (" << e.epoch.value << "," << e.start_offset.value << ")";
    o << " batches";
    for (const auto& bt : b.log.batches)
      o << " [" << bt.base.value << "+" << bt.payloads.size() << "@" << bt.epoch.value << "]";
  }
  return o.str();
}

}  // namespace hw::broker::replica_sim
