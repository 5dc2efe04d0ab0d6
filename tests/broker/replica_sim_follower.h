#pragma once
// The follower's side of a simulated broker: sending Fetch and ListOffsets
// to the leader and acting on the answers through the real follower_state
// (append, DivergingEpoch and its truncation, reset after
// OFFSET_OUT_OF_RANGE, errors and backoff). Mirrors
// broker/replica/replica_fetcher.cc and partition.cc (truncate,
// append_as_follower, follow_leader_offsets).

#include "tests/broker/replica_sim.h"

namespace hw::broker::replica_sim {

// A request from follower b to the leader it follows, at its position.
inline message simulation::follower_request(broker& b, msg_kind kind) {
  message m;
  m.kind = kind;
  m.from = b.id;
  m.to = b.fetch_from.value;
  m.incarnation = b.incarnation;
  m.request_id = ++request_ids_;
  m.generation = b.generation;
  m.position = b.following->position();
  return m;
}

inline void simulation::send_fetch(broker& b) {
  message m = follower_request(b, msg_kind::fetch);
  m.sender_epoch = b.epoch;
  b.fetch_request = m.request_id;
  b.fetch_sent_at = now_;
  send(std::move(m));
}

inline void simulation::send_list_offsets(broker& b) {
  message m = follower_request(b, msg_kind::list_offsets);
  b.list_request = m.request_id;
  b.list_sent_at = now_;
  send(std::move(m));
}

// partition::truncate, with the checker's rule that committed records stay.
inline void simulation::truncate(broker& b, const truncation& t) {
  if (t.what == truncation::kind::none) return;
  if (t.at < b.hw)
    fail("broker " + std::to_string(b.id) + " truncates to " + std::to_string(t.at.value) + ", below its HW " +
         std::to_string(b.hw.value) + ": " + t.reason);
  trace("broker " + std::to_string(b.id) + " truncates to " + std::to_string(t.at.value) + ": " + t.reason);
  if (t.what == truncation::kind::to_offset) {
    if (t.at < b.log.end()) ++out_.s.truncations;
    b.log.truncate_to(t.at);
  } else {
    // The log start never moves here, so a leader never starts above this
    // log's end; kept for completeness.
    b.log.truncate_to(storage::offset(0));
  }
  b.last_truncation = t.at;
  b.log_changed = true;
  b.verified = std::min(b.verified, b.log.end());
  if (b.hw > b.log.end()) b.hw = b.log.end();
}

// partition::follow_leader_offsets
inline void simulation::follow_leader_offsets(broker& b, storage::offset leader_hw) {
  if (b.leading) return;
  const storage::offset h = std::min(leader_hw, b.log.end());
  if (h.value >= 0) b.hw = h;
}

inline void simulation::on_diverging_epoch(broker& b, const message& a) {
  if (!follower_at(b, a.position.current_leader_epoch)) return;
  const epoch_end_offset local = b.log.cache.end_offset_for(a.diverging->epoch, b.log.end());
  const truncation t = truncation_for_divergence(*a.diverging, local.epoch, local.end_offset, b.log.end());
  if (!cfg_.unsafe.follower_skips_truncation) truncate(b, t);
  if (t.what == truncation::kind::none && !cfg_.unsafe.noop_truncation_keeps_epoch_cache) {
    // Nothing to cut still drops an epoch this replica started as leader
    // without writing to it (partition::truncate calls
    // partition_log::truncate_to at the log end, as Kafka's
    // UnifiedLog.truncateTo); kept, the next fetch carries it and diverges
    // again. Before that fix the cache was left alone: the unsafe switch.
    b.log.cache.truncate_from_end(b.log.end());
    b.log_changed = true;
  }
  b.following->on_truncated(b.log.end(), b.log.cache.latest_epoch());
}

inline void simulation::on_fetch_answer(broker& b, const message& a) {
  if (a.request_id != b.fetch_request) return;  // a timed-out request's answer
  b.fetch_request = 0;
  if (!b.following || a.generation != b.generation) return;
  follower_state& s = *b.following;
  const storage::leader_epoch epoch = a.position.current_leader_epoch;
  if (a.error != error_code::none) {
    s.on_error(a.error, now_);
    if (cfg_.record_trace)
      trace("broker " + std::to_string(b.id) + " fetch error " + std::string(protocol::error_name(a.error)) +
            " -> " + to_string(s.phase(now_)));
    return;
  }
  if (a.diverging) {
    on_diverging_epoch(b, a);
    return;
  }
  if (a.batches.empty()) {
    if (follower_at(b, epoch)) follow_leader_offsets(b, a.high_watermark);
    s.on_empty(a.high_watermark);
    return;
  }
  // partition::append_as_follower
  if (!follower_at(b, epoch)) return;
  if (a.batches.front().base != b.log.end()) {
    // unexpected_append_offset: the log changed under the fetcher.
    s.on_truncated(b.log.end(), b.log.cache.latest_epoch());
    return;
  }
  b.log.append(a.batches);
  b.log_changed = true;
  follow_leader_offsets(b, a.high_watermark);
  s.on_appended(a.position.fetch_offset, b.log.end(), b.log.cache.latest_epoch(), a.high_watermark);
}

inline void simulation::on_list_offsets_answer(broker& b, const message& a) {
  if (a.request_id != b.list_request) return;
  b.list_request = 0;
  if (!b.following || a.generation != b.generation) return;
  follower_state& s = *b.following;
  if (a.error != error_code::none) {
    s.on_error(a.error == error_code::offset_out_of_range ? error_code::unknown_server_error : a.error, now_);
    return;
  }
  if (!follower_at(b, a.position.current_leader_epoch)) return;
  const reset_decision d = reset_after_out_of_range(a.log_end, a.log_start, b.log.end());
  truncate(b, d.cut);
  s.on_reset(d.fetch_offset, b.log.cache.latest_epoch(), a.log_end);
}

}  // namespace hw::broker::replica_sim
