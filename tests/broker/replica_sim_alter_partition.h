#pragma once
// A simulated leader's AlterPartition manager: one ISR change in flight,
// sent to the controller, retried, and settled through leader_state's
// on_alter_answer. Mirrors broker/replica/alter_partition_manager.cc.

#include "tests/broker/replica_sim.h"

namespace hw::broker::replica_sim {

inline void simulation::queue_alter(broker& b, const isr_change& c) {
  b.alter = c;
  b.alter_in_flight = false;
  b.alter_send_at = now_;
  if (c.what == isr_change::kind::shrink) ++out_.s.shrinks;
  else ++out_.s.expansions;
}

inline void simulation::send_alter(broker& b) {
  message m;
  m.kind = msg_kind::alter_partition;
  m.from = b.id;
  m.to = controller_node;
  m.incarnation = b.incarnation;
  m.request_id = ++request_ids_;
  m.sender_epoch = b.epoch;
  m.change = *b.alter;
  b.alter_request = m.request_id;
  b.alter_in_flight = true;
  b.alter_send_at = now_ + cfg_.request_timeout_ms;  // sent again if no answer by then
  send(std::move(m));
}

inline void simulation::on_alter_answer(broker& b, const message& a) {
  if (a.request_id != b.alter_request) return;
  b.alter_in_flight = false;
  // An answer about a change that is no longer the one queued (the
  // metadata log settled it and a newer one was proposed): leader_state
  // would call it stale, and the newer change still goes out.
  if (!b.alter || !b.leading || a.change.id != b.alter->id) return;
  if (a.error == error_code::stale_broker_epoch) {
    b.alter_send_at = now_ + cfg_.alter_retry_ms;
    return;
  }
  const alter_outcome o = b.leading->on_alter_answer(a.change.id, a.answer);
  if (cfg_.record_trace)
    trace("broker " + std::to_string(b.id) + " AlterPartition answer " +
          std::string(protocol::error_name(a.answer.error)) + " isr " + list(a.answer.isr));
  switch (o) {
    case alter_outcome::committed:
      b.alter.reset();
      b.published.isr = b.leading->isr();
      b.published.partition_epoch = b.leading->version();
      maybe_advance_hw(b);
      check_acks(b);
      break;
    case alter_outcome::retry:
      b.alter_send_at = now_ + cfg_.alter_retry_ms;
      break;
    case alter_outcome::stale:
    case alter_outcome::published:
    case alter_outcome::reverted:
    case alter_outcome::await_metadata:
      // Nothing to send: reverted may propose again, the others wait for
      // the metadata log (which drops the pending change).
      b.alter.reset();
      break;
  }
}

}  // namespace hw::broker::replica_sim
