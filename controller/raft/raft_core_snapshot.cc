// raft_core: snapshots. The driver compacts the log behind a snapshot of the
// committed state; a leader serves that snapshot (FetchSnapshot) to a
// follower that fetches below its log start; the follower installs it
// through its ready and resumes fetching after it.
#include <algorithm>
#include <cassert>

#include "controller/raft/raft_core.h"

namespace hw::controller::raft {

using protocol::error_code;

bool raft_core::compact(snapshot_id s, snapshot_payload bytes) {
  if (!bytes || s.end_offset <= log_.start_offset() || s.end_offset > high_watermark_) return false;
  if (s.end_offset > durable_end_) return false;
  // At a batch end, with the epoch of the entry before it.
  if (log_.epoch_at(s.end_offset - 1) != s.leader_epoch) return false;
  if (!log_.is_batch_boundary(s.end_offset)) return false;
  log_.compact_to(s);
  snapshot_bytes_ = std::move(bytes);
  return true;
}

void raft_core::send_snapshot_fetch() {
  assert(snapshot_fetch_);
  fetch_in_flight_ = next_correlation_++;
  fetch_sent_ms_ = now_ms_;
  send(state_.leader_id,
       fetch_snapshot_request{fetch_in_flight_, options_.self, state_.current_epoch, *snapshot_fetch_,
                              static_cast<int64_t>(snapshot_buffer_.size()), options_.fetch_snapshot_max_bytes});
}

void raft_core::on(node_id from, const fetch_snapshot_request& m) {
  fetch_snapshot_response r;
  r.correlation = m.correlation;
  r.current = current_leader();
  r.snapshot = m.snapshot;
  if (role_ != role::leader) {
    r.error = error_code::not_leader_or_follower;
  } else if (m.current_leader_epoch != state_.current_epoch) {
    r.error = m.current_leader_epoch < state_.current_epoch ? error_code::fenced_leader_epoch
                                                            : error_code::unknown_leader_epoch;
  } else if (!snapshot_bytes_ || !(m.snapshot == log_.snapshot())) {
    r.error = error_code::snapshot_not_found;  // compacted again since: the next fetch says which
  } else if (m.position < 0 || m.position > static_cast<int64_t>(snapshot_bytes_->size())) {
    r.error = error_code::position_out_of_range;
  } else {
    replicas_[from].last_fetch_ms = now_ms_;  // copying a snapshot is fetching (check-quorum)
    auto size = static_cast<int64_t>(snapshot_bytes_->size());
    int64_t n = std::min<int64_t>(size - m.position, std::max<int32_t>(m.max_bytes, 1));
    r.size = size;
    r.position = m.position;
    r.bytes.assign(snapshot_bytes_->begin() + m.position, snapshot_bytes_->begin() + m.position + n);
  }
  send(from, std::move(r));
}

void raft_core::on(node_id, const fetch_snapshot_response& m) {
  if (m.correlation == 0 || m.correlation != fetch_in_flight_) return;
  fetch_in_flight_ = 0;
  if (observe_leader(m.current)) return;
  if (role_ != role::follower || !snapshot_fetch_ || m.current != current_leader()) return;
  if (m.error != error_code::none || !(m.snapshot == *snapshot_fetch_) ||
      m.position != static_cast<int64_t>(snapshot_buffer_.size()) || m.position + static_cast<int64_t>(m.bytes.size()) > m.size) {
    // Start over from a fetch: it names the leader's current snapshot.
    snapshot_fetch_.reset();
    snapshot_buffer_.clear();
    maybe_send_fetch();
    return;
  }
  fetched_from_leader_ = true;
  deadline_ms_ = follower_deadline();
  snapshot_buffer_.insert(snapshot_buffer_.end(), m.bytes.begin(), m.bytes.end());
  if (static_cast<int64_t>(snapshot_buffer_.size()) < m.size) {
    send_snapshot_fetch();
    return;
  }
  // Complete: it replaces the whole log (the driver stores it before it
  // appends or sends anything else).
  snapshot_id s = *snapshot_fetch_;
  snapshot_fetch_.reset();
  snapshot_bytes_ = std::make_shared<const std::vector<uint8_t>>(std::move(snapshot_buffer_));
  snapshot_buffer_.clear();
  log_.reset_to_snapshot(s);
  durable_end_ = s.end_offset;
  pending_.truncate_to.reset();
  pending_.entries.clear();
  pending_.install_snapshot = std::pair{s, snapshot_bytes_};
  set_hw(s.end_offset);
  maybe_send_fetch();
}

}  // namespace hw::controller::raft
