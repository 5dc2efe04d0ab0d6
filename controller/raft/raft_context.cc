// raft_context: the shared state's helpers.
#include "controller/raft/raft_context.h"

#include <algorithm>
#include <cassert>

namespace hw::controller::raft {

raft_context::raft_context(raft_options o, raft_disk_state disk, int64_t now)
    : options(std::move(o)),
      state(disk.state),
      log(disk.snapshot, std::move(disk.entries)),
      voters(options.voters.empty() ? voter_history::dynamic(std::move(disk.snapshot_voters))
                                    : voter_history::fixed(voter_set::of_ids(options.voters))),
      now_ms(now),
      durable_end(log.end_offset()),
      high_watermark(log.start_offset()),
      snapshot_bytes(std::move(disk.snapshot_bytes)) {
  assert(options.random);
  std::sort(options.voters.begin(), options.voters.end());
  if (options.bootstrap.empty()) options.bootstrap = options.voters;
  if (voters.is_dynamic())
    for (const auto& e : log.entries())
      if (e.voters) voters.record(e.end_offset() - 1, *e.voters);
}

bool raft_context::append(log_entry e) {
  // The set holds from its VotersRecord, the batch's last record.
  const bool changes = e.voters.has_value() && voters.is_dynamic();
  if (changes) voters.record(e.end_offset() - 1, *e.voters);
  log.append(std::move(e));
  return changes;
}

bool raft_context::truncate_to(offset o, offset* new_end) {
  *new_end = log.truncate_to(o);
  const offset before = voters.latest_offset();
  voters.truncate_to(*new_end);
  return voters.latest_offset() != before;
}

bool raft_context::reset_to_snapshot(snapshot_id s, std::optional<voter_set> voters_at) {
  const voter_set before = voters.latest();
  log.reset_to_snapshot(s);
  voters.reset(s.end_offset, std::move(voters_at));
  return !(voters.latest() == before);
}

void raft_context::set_state(persistent_state s) {
  if (s == state) return;
  state = s;
  pending.state = s;
}

void raft_context::set_hw(offset hw) {
  if (hw <= high_watermark) return;
  high_watermark = hw;
  pending.high_watermark = hw;
}

void raft_context::note_leader_change() {
  leader_and_epoch le = current_leader();
  if (le == last_reported_leader) return;
  last_reported_leader = le;
  pending.leader = le;
}

fetch_request raft_context::fetch_request_from_end(uint64_t correlation) const {
  fetch_request r{correlation,        options.self,      state.current_epoch, log.end_offset(),
                  log.last_epoch(),   options.fetch_max_wait_ms, high_watermark};
  r.replica_directory_id = options.directory_id;
  return r;
}

int64_t raft_context::random_election_timeout() {
  int64_t t = options.election_timeout_ms;
  int64_t r = options.random(t, 2 * t);
  assert(r >= t && r < 2 * t);
  return r;
}

// Followers of one leader fetch in step, so their fetch timeouts would end
// together and their elections split the vote (each votes for itself, and
// both wait out another election timeout). A random extra of at most a fifth
// of the election timeout lets one of them ask first.
int64_t raft_context::follower_deadline() {
  return now_ms + options.fetch_timeout_ms + options.random(0, options.election_timeout_ms / 5 + 1);
}

}  // namespace hw::controller::raft
