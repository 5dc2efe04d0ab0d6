// raft_context: the shared state's helpers.
#include "controller/raft/raft_context.h"

#include <algorithm>
#include <cassert>

namespace hw::controller::raft {

raft_context::raft_context(raft_options o, raft_disk_state disk, int64_t now)
    : options(std::move(o)),
      state(disk.state),
      log(disk.snapshot, std::move(disk.entries)),
      now_ms(now),
      durable_end(log.end_offset()),
      high_watermark(log.start_offset()),
      snapshot_bytes(std::move(disk.snapshot_bytes)) {
  assert(options.random);
  assert(!options.voters.empty());
  std::sort(options.voters.begin(), options.voters.end());
}

bool raft_context::is_voter_id(node_id n) const {
  return std::binary_search(options.voters.begin(), options.voters.end(), n);
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
