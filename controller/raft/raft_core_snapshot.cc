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
  uint64_t correlation = next_correlation_++;
  fetch_.sent(correlation, now_ms_);
  send(state_.leader_id, fetch_snapshot_request{correlation, options_.self, state_.current_epoch,
                                                fetch_.copied_snapshot(), fetch_.copied_bytes(),
                                                options_.fetch_snapshot_max_bytes});
}

void raft_core::on(node_id from, const fetch_snapshot_request& m) {
  fetch_snapshot_response r;
  r.correlation = m.correlation;
  r.current = current_leader();
  r.snapshot = m.snapshot;
  r.error = fetch_refusal(m.current_leader_epoch);
  if (r.error == error_code::none) leader_.serve_snapshot(from, m, log_, snapshot_bytes_, now_ms_, r);
  send(from, std::move(r));
}

void raft_core::on(node_id, const fetch_snapshot_response& m) {
  if (!fetch_.take_answer(m.correlation)) return;
  if (observe_leader(m.current)) return;
  if (role_ != role::follower || !fetch_.copying() || m.current != current_leader()) return;
  fetch_progress::chunk got = fetch_.add_chunk(m);
  if (got == fetch_progress::chunk::restart) {
    // Start over from a fetch: it names the leader's current snapshot.
    maybe_send_fetch();
    return;
  }
  fetch_.heard(true);
  deadline_ms_ = follower_deadline();
  if (got == fetch_progress::chunk::more) {
    send_snapshot_fetch();
    return;
  }
  // Complete: it replaces the whole log (the driver stores it before it
  // appends or sends anything else).
  auto [s, bytes] = fetch_.finish_copy();
  snapshot_bytes_ = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  log_.reset_to_snapshot(s);
  durable_end_ = s.end_offset;
  pending_.truncate_to.reset();
  pending_.entries.clear();
  pending_.install_snapshot = std::pair{s, snapshot_bytes_};
  set_hw(s.end_offset);
  maybe_send_fetch();
}

}  // namespace hw::controller::raft
