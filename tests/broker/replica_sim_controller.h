#pragma once
// The simulated controller: broker registration, heartbeats and fencing,
// the partition's leader and ISR changes through the real
// partition_change_builder, AlterPartition, and the metadata image it sends
// to the brokers. Mirrors controller/quorum_controller (registration,
// leader_and_isr_updates, alter_partition) for one partition, with the
// metadata log reduced to a version counter.

#include "tests/broker/replica_sim.h"

namespace hw::broker::replica_sim {

inline metadata_view simulation::view() const {
  metadata_view v;
  v.version = ctl_.version;
  v.role = {ctl_.reg.leader, ctl_.reg.leader_epoch, ctl_.reg.partition_epoch, ctl_.reg.replicas, ctl_.reg.isr};
  for (int i = 1; i <= 3; ++i) {
    const auto& cb = ctl_.brokers[i];
    if (cb.registered) v.brokers[i] = broker_status{cb.epoch, cb.fenced, false};
  }
  return v;
}

// quorum_controller::leader_and_isr_updates for our one partition.
inline void simulation::leader_and_isr_update(int remove, int add) {
  controller::partition_change_options o;
  o.acceptable_leader = [&](node_id r) {
    if (r.value < 0 || r.value == remove) return false;
    return r.value == add || active(r.value);
  };
  o.min_isr = 2;
  o.elr_enabled = false;
  controller::partition_change_builder builder(ctl_.reg, controller::topic_id(topic_id_), 0, o);
  if (cfg_.unsafe.unclean_elections) builder.set_election(controller::election_type::unclean);
  std::vector<node_id> isr;
  for (node_id r : ctl_.reg.isr)
    if (r.value != remove) isr.push_back(r);
  builder.set_target_isr(std::move(isr));
  if (auto record = builder.build()) apply_change(*record);
}

inline void simulation::apply_change(const controller::msg::partition_change_record& record) {
  const storage::leader_epoch before_epoch = ctl_.reg.leader_epoch;
  ctl_.reg = controller::merge(ctl_.reg, record);
  if (ctl_.reg.leader_epoch != before_epoch) ++out_.s.elections;
  trace("controller: leader " + std::to_string(ctl_.reg.leader.value) + " epoch " +
        std::to_string(ctl_.reg.leader_epoch.value) + " partition epoch " +
        std::to_string(ctl_.reg.partition_epoch.value) + " isr " + list(ctl_.reg.isr));
}

// A new metadata version, sent to every broker.
inline void simulation::publish() {
  ++ctl_.version;
  broadcast();
}

inline void simulation::broadcast() {
  metadata_view v = view();
  for (int i = 1; i <= 3; ++i) {
    message m;
    m.kind = msg_kind::metadata;
    m.from = controller_node;
    m.to = i;
    m.image = v;
    send(std::move(m));
  }
}

inline void simulation::controller_tick() {
  for (int i = 1; i <= 3; ++i) {
    auto& cb = ctl_.brokers[i];
    if (cb.registered && !cb.fenced && now_ - cb.last_contact > cfg_.session_timeout_ms) {
      trace("controller: broker " + std::to_string(i) + " missed its session, fenced");
      if (ctl_.reg.is_replica(node_id(i)) && ctl_.reg.in_isr(node_id(i)))
        leader_and_isr_update(i, -1);
      cb.fenced = true;
      publish();
    }
  }
  if (now_ >= ctl_.next_refresh) {
    ctl_.next_refresh = now_ + cfg_.metadata_refresh_ms;
    broadcast();
  }
}

inline void simulation::controller_register(const message& m) {
  auto& cb = ctl_.brokers[m.from];
  message a = answer_to(m, msg_kind::register_answer);
  if (cb.registered && cb.incarnation != m.incarnation && !cb.fenced &&
      now_ - cb.last_contact <= cfg_.session_timeout_ms) {
    a.error = error_code::duplicate_broker_registration;
    send(std::move(a));
    return;
  }
  if (cb.incarnation != m.incarnation) {
    // The previous incarnation is gone: out of the ISR.
    if (ctl_.reg.in_isr(node_id(m.from))) leader_and_isr_update(m.from, -1);
    ++ctl_.version;
    cb.epoch = storage::broker_epoch(ctl_.version);  // the registration record's offset
    cb.fenced = true;
    cb.incarnation = m.incarnation;
    cb.registered = true;
    trace("controller: broker " + std::to_string(m.from) + " registered at epoch " + std::to_string(cb.epoch.value));
    broadcast();
  }
  cb.last_contact = now_;
  a.sender_epoch = cb.epoch;
  send(std::move(a));
}

inline void simulation::controller_heartbeat(const message& m) {
  auto& cb = ctl_.brokers[m.from];
  if (!cb.registered || cb.epoch != m.sender_epoch) return;  // STALE_BROKER_EPOCH
  cb.last_contact = now_;
  // Unfenced once it has its own registration record.
  if (cb.fenced && m.metadata_version >= cb.epoch.value) {
    cb.fenced = false;
    trace("controller: broker " + std::to_string(m.from) + " unfenced");
    if (!ctl_.reg.has_leader()) leader_and_isr_update(-1, m.from);
    publish();
  }
}

// quorum_controller::alter_partition_error (v3): why a proposed ISR is
// refused, in Kafka's order of checks.
inline error_code simulation::alter_partition_error(const message& m, const std::vector<int32_t>& isr) const {
  const auto& reg = ctl_.reg;
  const isr_change& c = m.change;
  if (c.leader_epoch > reg.leader_epoch || c.partition_epoch > reg.partition_epoch) return error_code::not_controller;
  if (c.leader_epoch < reg.leader_epoch) return error_code::fenced_leader_epoch;
  if (node_id(m.from) != reg.leader) return error_code::invalid_request;
  if (c.partition_epoch < reg.partition_epoch) return error_code::invalid_update_version;
  std::vector<int32_t> sorted = isr;
  std::sort(sorted.begin(), sorted.end());
  bool unique = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  bool replicas = std::all_of(isr.begin(), isr.end(), [&](int32_t r) { return reg.is_replica(node_id(r)); });
  if (!unique || !replicas || !std::count(isr.begin(), isr.end(), reg.leader.value)) return error_code::invalid_request;
  for (size_t i = 0; i < isr.size(); ++i) {
    const auto& b = ctl_.brokers[isr[i]];
    const int64_t seen = c.broker_epochs[i].value;
    if (!b.registered || b.fenced || (seen != -1 && seen != b.epoch.value)) return error_code::ineligible_replica;
  }
  return error_code::none;
}

// quorum_controller::alter_partition: a valid ISR goes through the
// partition_change_builder (which may also elect) and is published.
inline void simulation::controller_alter_partition(const message& m) {
  message a = answer_to(m, msg_kind::alter_partition_answer);
  a.change = m.change;
  const auto& cb = ctl_.brokers[m.from];
  if (!cb.registered || cb.epoch != m.sender_epoch) {
    a.error = error_code::stale_broker_epoch;  // the request as a whole
    send(std::move(a));
    return;
  }
  const isr_change& c = m.change;
  std::vector<int32_t> isr;
  for (node_id n : c.isr) isr.push_back(n.value);
  error_code e = alter_partition_error(m, isr);
  if (e == error_code::none) {
    controller::partition_change_options o;
    o.acceptable_leader = [&](node_id r) { return active(r.value); };
    o.min_isr = 2;
    controller::partition_change_builder builder(ctl_.reg, controller::topic_id(topic_id_), 0, o);
    if (cfg_.unsafe.unclean_elections) builder.set_election(controller::election_type::unclean);
    builder.set_target_isr(c.isr);
    if (auto record = builder.build()) {
      apply_change(*record);
      publish();
      if (record->leader != controller::no_leader_change && record->leader != m.from) e = error_code::new_leader_elected;
    }
  }
  a.answer.error = e;
  if (e == error_code::none) {
    a.answer.leader_epoch = ctl_.reg.leader_epoch;
    a.answer.partition_epoch = ctl_.reg.partition_epoch;
    a.answer.isr = ctl_.reg.isr;
  }
  trace("controller: AlterPartition from " + std::to_string(m.from) + " " + list(c.isr) + " at " +
        std::to_string(c.leader_epoch.value) + "/" + std::to_string(c.partition_epoch.value) + ": " +
        std::string(protocol::error_name(e)));
  send(std::move(a));
}

}  // namespace hw::broker::replica_sim
