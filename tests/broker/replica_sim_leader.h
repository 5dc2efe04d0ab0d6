#pragma once
// The leader's side of a simulated broker: appending a produce (and
// refusing acks=all below min ISR), and answering a follower's Fetch and
// ListOffsets. Mirrors broker/replica/partition.cc (append_records,
// check_divergence, on_follower_fetch), broker/handlers/01_fetch.cc
// (check_on_strand, read_one) and broker/handlers/02_list_offsets.cc.

#include "tests/broker/replica_sim.h"

namespace hw::broker::replica_sim {

// --- produce (partition::append_records) ------------------------------------------
inline void simulation::on_produce(broker& b, const message& m) {
  const bool leader = b.published.leader == node_id(b.id) && b.leading;
  if (!leader) {
    last_produce_error_ = error_code::not_leader_or_follower;
    return;
  }
  if (m.acks_all && !cfg_.unsafe.hw_ignores_min_isr) {
    if (static_cast<int32_t>(b.leading->isr().size()) < b.leading->effective_min_isr()) {
      ++out_.s.refused_min_isr;
      last_produce_error_ = error_code::not_enough_replicas;
      trace("broker " + std::to_string(b.id) + " refuses acks=all: isr " + list(b.leading->isr()));
      return;
    }
  }
  batch bt;
  bt.base = b.log.end();
  bt.epoch = b.published.leader_epoch;
  bt.payloads = m.payloads;
  b.log.append({bt});
  b.log_changed = true;
  last_produce_error_ = error_code::none;
  if (cfg_.record_trace)
    trace("broker " + std::to_string(b.id) + " appends " + std::to_string(bt.payloads.size()) + " at " +
        std::to_string(bt.base.value) + " epoch " + std::to_string(bt.epoch.value) + (m.acks_all ? " acks=all" : " acks=1"));
  maybe_advance_hw(b);
  if (!m.acks_all) {
    out_.s.acks_one += static_cast<int64_t>(bt.payloads.size());
    check_acks(b);
    return;
  }
  pending_ack p;
  p.required = b.log.end();
  for (size_t i = 0; i < bt.payloads.size(); ++i)
    p.records.push_back({bt.base + static_cast<int64_t>(i), bt.payloads[i]});
  for (int i = 1; i <= 3; ++i) p.crashes_at_append[static_cast<size_t>(i)] = brokers_[i].crashes;
  b.acks.push_back(std::move(p));
  check_acks(b);
}

// --- the leader's side of a follower's fetch (handlers/01_fetch.cc) ----------------
inline error_code simulation::check_leader_epoch(const broker& b, storage::leader_epoch current) const {
  if (current.value >= 0) {
    if (current < b.published.leader_epoch) return error_code::fenced_leader_epoch;
    if (current > b.published.leader_epoch) return error_code::unknown_leader_epoch;
  }
  if (b.published.leader != node_id(b.id)) return error_code::not_leader_or_follower;
  return error_code::none;
}

// check_on_strand: the epoch, then the last fetched epoch against the
// epoch cache (partition::check_divergence).
inline simulation::fetch_check simulation::check_fetch(const broker& b, const fetch_position& pos) const {
  fetch_check c;
  c.error = check_leader_epoch(b, pos.current_leader_epoch);
  if (c.error == error_code::none && pos.last_fetched_epoch && !cfg_.unsafe.leader_skips_divergence_check) {
    const epoch_end_offset end = b.log.cache.end_offset_for(*pos.last_fetched_epoch, b.log.end());
    if (end.end_offset == storage::undefined_epoch_offset || end.epoch == storage::undefined_epoch) {
      c.error = error_code::offset_out_of_range;
    } else if (pos.fetch_offset < storage::offset(0)) {
      c.error = error_code::offset_out_of_range;
    } else if (end.epoch < *pos.last_fetched_epoch || end.end_offset < pos.fetch_offset) {
      c.diverging = diverging_epoch{end.epoch, end.end_offset};
    }
  }
  return c;
}

// partition::on_follower_fetch: the follower's progress, which may expand
// the ISR and move the HW (and with it acks=all produces).
inline error_code simulation::on_follower_fetch(broker& b, const message& m) {
  auto outcome = b.leading->on_follower_fetch(node_id(m.from), m.position.fetch_offset, storage::offset(0),
                                              m.sender_epoch, now_, b.log.end(), b.hw, lookup_of(b));
  if (outcome.expand) {
    trace("broker " + std::to_string(b.id) + " proposes isr " + list(outcome.expand->isr));
    queue_alter(b, *outcome.expand);
  }
  if (outcome.error == error_code::none && outcome.log_end_moved) {
    const storage::offset before = b.hw;
    maybe_advance_hw(b);
    if (b.hw != before) check_acks(b);
  }
  return outcome.error;
}

// read_one, in the order of Kafka's Partition.readRecords: a diverging
// history is answered before the fetch offset is held against the log end
// (a diverged follower is often longer than the new leader).
inline void simulation::read_one(const broker& b, const fetch_position& pos, const fetch_check& checked, message& a) {
  const bool out_of_range = pos.fetch_offset < storage::offset(0) || pos.fetch_offset > b.log.end();
  if (checked.error != error_code::none) {
    a.error = checked.error;
  } else if (out_of_range && (!checked.diverging || cfg_.unsafe.out_of_range_before_divergence)) {
    a.error = error_code::offset_out_of_range;
  } else {
    a.high_watermark = b.hw;
    a.log_start = storage::offset(0);
    if (checked.diverging) {
      a.diverging = checked.diverging;
      ++out_.s.divergences;
    } else {
      for (const auto& bt : b.log.batches) {
        if (bt.next() <= pos.fetch_offset) continue;
        if (static_cast<int>(a.batches.size()) >= cfg_.max_batches_per_fetch) break;
        a.batches.push_back(bt);
      }
    }
  }
}

inline void simulation::trace_fetch_answer(const broker& b, const message& m, const message& a) {
  if (!cfg_.record_trace) return;
  const fetch_position& pos = m.position;
  trace("broker " + std::to_string(b.id) + " answers fetch from " + std::to_string(m.from) + " at " +
        std::to_string(pos.fetch_offset.value) + " (last epoch " +
        (pos.last_fetched_epoch ? std::to_string(pos.last_fetched_epoch->value) : std::string("none")) +
        ", epoch " + std::to_string(pos.current_leader_epoch.value) + "): " +
        std::string(protocol::error_name(a.error)) +
        (a.diverging ? " diverging (" + std::to_string(a.diverging->epoch.value) + "," +
                           std::to_string(a.diverging->end_offset.value) + ")"
                     : "") +
        " " + std::to_string(a.batches.size()) + " batches hw " + std::to_string(a.high_watermark.value));
}

inline void simulation::on_fetch(broker& b, const message& m) {
  message a = answer_to(m, msg_kind::fetch_answer);
  const fetch_position& pos = m.position;
  fetch_check checked = check_fetch(b, pos);
  if (checked.error == error_code::none && !checked.diverging && pos.fetch_offset <= b.log.end() &&
      pos.fetch_offset >= storage::offset(0))
    checked.error = on_follower_fetch(b, m);
  read_one(b, pos, checked, a);
  trace_fetch_answer(b, m, a);
  send(std::move(a));
}

inline void simulation::on_list_offsets(broker& b, const message& m) {
  message a = answer_to(m, msg_kind::list_offsets_answer);
  a.error = check_leader_epoch(b, m.position.current_leader_epoch);
  if (a.error == error_code::none) {
    a.log_end = b.log.end();  // the latest offset, asked as a replica
    a.log_start = storage::offset(0);
  }
  send(std::move(a));
}

}  // namespace hw::broker::replica_sim
