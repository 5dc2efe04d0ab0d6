#pragma once
// Inside raft_core: the state every part of the core reads and writes (the
// quorum state, the log, the role and what that role keeps, the time, the
// ready being built) and the small helpers they share. raft_core owns one;
// its transitions (raft_transitions.h) and its message handlers
// (raft_election.h, raft_fetching.h) work on it. Internal to controller/raft:
// the driver sees raft_core.h alone.
//
// Owner/thread: raft_core, on the raft strand; not thread-safe.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "controller/raft/raft_interface.h"
#include "controller/raft/raft_log.h"
#include "controller/raft/raft_roles.h"
#include "controller/raft/raft_voters.h"

namespace hw::controller::raft {

struct raft_context {
  raft_context(raft_options o, raft_disk_state disk, int64_t now);

  // Voters are the newest set's (raft_voters.h).
  bool is_voter() const { return is_voter_id(options.self); }
  bool is_voter_id(node_id n) const { return voters.latest().contains(n); }
  size_t majority() const { return voters.latest().majority(); }
  // Whether this node may stand for election: it is a voter, or the newest
  // change, not known to be committed, removed it (a leader that removed
  // itself and lost its leadership before the removal committed). Without
  // that, a voter that has only the older set would wait for its vote while
  // it waits for theirs. It needs a majority of the newest set all the same,
  // and resigns once it has committed its removal. (One change at a time:
  // the set before the newest is committed.)
  bool may_stand() const {
    if (is_voter()) return true;
    const offset newest = voters.latest_offset();
    return newest >= high_watermark && voters.at(newest - 1).contains(options.self);
  }
  std::vector<node_id> voter_ids() const { return voters.latest().ids(); }

  // The log's changes, with the voter history kept in step; each says
  // whether the newest voter set changed (raft_transitions::on_voters_changed
  // acts on it).
  bool append(log_entry e);
  bool truncate_to(offset o, offset* new_end);
  bool reset_to_snapshot(snapshot_id s, std::optional<voter_set> voters_at);
  leader_and_epoch current_leader() const { return {state.leader_id, state.current_epoch}; }
  uint64_t next_correlation() { return correlation_++; }

  // Into the ready being built.
  void send(node_id to, message m) { pending.messages.push_back(outbound{to, std::move(m)}); }
  void set_state(persistent_state s);
  void set_hw(offset hw);
  // Reports the leader and epoch once they differ from what was reported.
  void note_leader_change();

  // A Fetch from our durable log end (a follower's, or an observer's probe).
  fetch_request fetch_request_from_end(uint64_t correlation) const;

  // The randomized election timeout, in [t, 2t).
  int64_t random_election_timeout();
  // When a follower that hears nothing more starts an election.
  int64_t follower_deadline();

  raft_options options;  // voters sorted
  persistent_state state;
  raft_log log;
  voter_history voters;
  role current_role = role::unattached;
  int64_t now_ms = 0;
  offset durable_end{0};
  offset high_watermark{0};
  snapshot_payload snapshot_bytes;  // ours, served when leading

  // Election (unattached, prospective, candidate, resigned) or fetch
  // (follower) or check-quorum (leader) deadline.
  int64_t deadline_ms = 0;
  voter_round votes;        // prospective, candidate: votes or pre-votes this round
  fetch_progress fetch;     // follower, leaderless observer
  leader_progress leader;   // leader (kept while resigned, for the views)
  voter_round end_epochs;   // resigned: who answered our EndQuorumEpoch
  std::vector<node_id> resign_successors;

  leader_and_epoch last_reported_leader{no_node, epoch{-1}};
  ready pending;

 private:
  uint64_t correlation_ = 1;
};

}  // namespace hw::controller::raft
