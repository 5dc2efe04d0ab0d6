#pragma once
// The simulated world around the brokers: a producer that writes to
// whoever it thinks leads, and the fault schedule (crashes, cut-off
// brokers, cut links) kept within the one-fault-at-a-time model that
// replica_sim.h describes. No real file is mirrored: this is the test's
// adversary.

#include "tests/broker/replica_sim.h"

namespace hw::broker::replica_sim {

inline void simulation::producer_tick() {
  if (now_ < heal_at_) push_event(now_ + rng_.uniform(5, 16), ev_kind::producer_tick, 0);
  if (!rng_.chance(cfg_.p_produce)) return;
  // Usually where the controller says the leader is (the producer's
  // metadata is fresh enough), sometimes a stale guess.
  int to = ctl_.reg.leader.value;
  if (to < 1 || rng_.chance(0.1)) to = static_cast<int>(rng_.uniform(1, 4));
  produce(to, static_cast<int>(rng_.uniform(1, 4)), !rng_.chance(cfg_.p_acks_one));
}

// One fault at a time (see replica_sim.h): everyone up, registered and
// unfenced, no cut in place.
inline bool simulation::quiet() const {
  if (fault_active_) return false;
  for (int i = 1; i <= 3; ++i) {
    const broker& b = brokers_[i];
    if (!b.up || b.epoch.value < 0 || ctl_.brokers[i].fenced || b.epoch != ctl_.brokers[i].epoch) return false;
  }
  return true;
}

// Another ISR member must hold what x holds, also in the ISR that a
// change x proposed as leader would leave (its AlterPartition may reach
// the controller after x is gone).
inline bool simulation::may_crash(int x) const {
  auto other = [x](const auto& isr) {
    for (const auto& r : isr)
      if (static_cast<int>(node_id(r).value) != x) return true;
    return false;
  };
  if (!other(ctl_.reg.isr)) return false;
  const broker& b = brokers_[x];
  if (b.leading && b.leading->pending() && !other(b.leading->pending()->isr)) return false;
  for (const auto& e : queue_)
    if (e.kind == ev_kind::deliver && e.msg.kind == msg_kind::alter_partition && e.msg.from == x && !other(e.msg.change.isr))
      return false;
  return true;
}

inline void simulation::fault_tick() {
  if (now_ >= heal_at_) return;
  push_event(now_ + 25, ev_kind::fault_tick, 0);
  if (!quiet() || !rng_.chance(cfg_.p_fault)) return;
  const int what = static_cast<int>(rng_.uniform(0, 10));
  // Faults hit the leader more often: that is where histories part.
  int x = static_cast<int>(rng_.uniform(1, 4));
  if (ctl_.reg.leader.value > 0 && rng_.chance(0.6)) x = ctl_.reg.leader.value;
  if (what < 4) {
    if (!may_crash(x)) return;
    crash_broker(brokers_[x]);
    const int64_t back = now_ + rng_.uniform(20, 400);
    last_restart_ = std::max(last_restart_, back);
    push_event(back, ev_kind::restart, x);
  } else if (what < 8) {
    // Cut off from the other brokers and the controller; the producer
    // may be on either side.
    for (int n = 0; n <= 3; ++n)
      if (n != x) cut_link(x, n);
    if (rng_.chance(0.5)) cut_link(x, producer_node);
    fault_active_ = true;
    ++out_.s.cuts;
    push_event(now_ + rng_.uniform(50, 500), ev_kind::heal, 0);
  } else {
    // One link between two brokers (a follower falls behind, nobody is fenced).
    int y = 1 + (x % 3);
    cut_link(x, y);
    fault_active_ = true;
    ++out_.s.cuts;
    push_event(now_ + rng_.uniform(50, 400), ev_kind::heal, 0);
  }
}

inline void simulation::heal_all() {
  healed_ = true;
  heal_links();
  fault_active_ = false;
  trace("chaos over: healed");
}

}  // namespace hw::broker::replica_sim
