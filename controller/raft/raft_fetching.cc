// raft_fetching: Fetch and FetchSnapshot, both sides.
#include "controller/raft/raft_fetching.h"

#include <algorithm>
#include <memory>

namespace hw::controller::raft {

using protocol::error_code;

error_code raft_fetching::refusal(epoch e) const {
  if (c_.current_role != role::leader) return error_code::not_leader_or_follower;
  if (e < c_.state.current_epoch) return error_code::fenced_leader_epoch;
  if (e > c_.state.current_epoch) return error_code::unknown_leader_epoch;
  return error_code::none;
}

// ---- the leader ------------------------------------------------------------

void raft_fetching::on(node_id from, const fetch_request& m) {
  fetch_response r;
  r.correlation = m.correlation;
  r.current = c_.current_leader();
  r.log_start_offset = c_.log.start_offset();
  r.error = refusal(m.current_leader_epoch);
  if (r.error == error_code::none) {
    c_.leader.serve_fetch(from, m, c_.log, c_.options.fetch_max_records, c_.now_ms, r);
    t_.leader_commit();
  }
  r.high_watermark = c_.high_watermark;
  c_.send(from, std::move(r));
}

void raft_fetching::on(node_id from, const fetch_snapshot_request& m) {
  fetch_snapshot_response r;
  r.correlation = m.correlation;
  r.current = c_.current_leader();
  r.snapshot = m.snapshot;
  r.error = refusal(m.current_leader_epoch);
  if (r.error == error_code::none) c_.leader.serve_snapshot(from, m, c_.log, c_.snapshot_bytes, c_.now_ms, r);
  c_.send(from, std::move(r));
}

// ---- a follower ------------------------------------------------------------

void raft_fetching::on(node_id, const fetch_response& m) {
  if (!c_.fetch.take_answer(m.correlation)) return;  // stale or duplicated
  if (t_.observe_leader(m.current)) return;
  if (c_.current_role != role::follower || m.current != c_.current_leader()) return;
  if (m.error != error_code::none) {
    // E.g. a leader that resigned: do not hammer it; the fetch timeout (or
    // its EndQuorumEpoch) ends the wait.
    c_.fetch.back_off(c_.now_ms + c_.options.retry_backoff_ms);
    return;
  }
  on_fetched(m);
  t_.maybe_send_fetch();
}

void raft_fetching::on_fetched(const fetch_response& m) {
  // An answer the leader sent before it said it leaves does not put the
  // successor's election off (it would wait a whole fetch timeout more).
  if (!c_.fetch.leader_ending()) {
    c_.fetch.heard(true);
    c_.deadline_ms = c_.follower_deadline();
  }
  if (m.diverging_epoch) {
    // Cut back to where our log and the leader's last agree.
    offset target = std::min(m.diverging_epoch->end_offset,
                             c_.log.end_offset_for_epoch(m.diverging_epoch->leader_epoch).end_offset);
    offset end{0};
    const bool voters_changed = c_.truncate_to(target, &end);
    c_.pending.truncate_to = c_.pending.truncate_to ? std::min(*c_.pending.truncate_to, end) : end;
    std::erase_if(c_.pending.entries, [end](const log_entry& e) { return e.base_offset >= end; });
    c_.durable_end = std::min(c_.durable_end, end);
    if (voters_changed) t_.on_voters_changed();
    return;
  }
  if (m.snapshot) {
    // Below the leader's log start: copy its snapshot first.
    c_.fetch.start_copy(*m.snapshot);
    t_.send_snapshot_fetch();
    return;
  }
  bool voters_changed = false;
  for (const log_entry& e : m.entries) {
    if (e.end_offset() <= c_.log.end_offset()) continue;  // already held (a resent answer)
    if (e.base_offset != c_.log.end_offset() || e.leader_epoch < c_.log.last_epoch() || e.records.empty()) break;
    voters_changed |= c_.append(e);
    c_.pending.entries.push_back(e);
  }
  c_.set_hw(std::min(m.high_watermark, c_.log.end_offset()));
  if (voters_changed) t_.on_voters_changed();
}

void raft_fetching::on(node_id, const fetch_snapshot_response& m) {
  if (!c_.fetch.take_answer(m.correlation)) return;
  if (t_.observe_leader(m.current)) return;
  if (c_.current_role != role::follower || !c_.fetch.copying() || m.current != c_.current_leader()) return;
  fetch_progress::chunk got = c_.fetch.add_chunk(m);
  if (got == fetch_progress::chunk::restart) {
    // Start over from a fetch: it names the leader's current snapshot.
    t_.maybe_send_fetch();
    return;
  }
  if (!c_.fetch.leader_ending()) {
    c_.fetch.heard(true);
    c_.deadline_ms = c_.follower_deadline();
  }
  if (got == fetch_progress::chunk::more) {
    t_.send_snapshot_fetch();
    return;
  }
  install_copied_snapshot();
  t_.maybe_send_fetch();
}

// The copy is complete: it replaces the whole log (the driver stores it
// before it appends or sends anything else).
void raft_fetching::install_copied_snapshot() {
  auto [s, bytes] = c_.fetch.finish_copy();
  c_.snapshot_bytes = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  std::optional<voter_set> voters_at;
  if (c_.options.snapshot_voters) voters_at = c_.options.snapshot_voters(*c_.snapshot_bytes);
  const bool voters_changed = c_.reset_to_snapshot(s, std::move(voters_at));
  c_.durable_end = s.end_offset;
  c_.pending.truncate_to.reset();
  c_.pending.entries.clear();
  c_.pending.install_snapshot = std::pair{s, c_.snapshot_bytes};
  c_.set_hw(s.end_offset);
  if (voters_changed) t_.on_voters_changed();
}

}  // namespace hw::controller::raft
