#pragma once
// Inside raft_core: the moves between roles (Kafka's QuorumState
// transitions) and the requests each role sends. Each transition sets the
// persistent state it implies, starts the state of the role it enters and
// clears what the role it leaves kept, then sends what the new role asks
// for at once (votes, BeginQuorumEpoch, EndQuorumEpoch, a Fetch).
//
// Owner/thread: raft_core, on the raft strand; works on its raft_context.

#include <vector>

#include "controller/raft/raft_context.h"

namespace hw::controller::raft {

class raft_transitions {
 public:
  explicit raft_transitions(raft_context& c) : c_(c) {}

  void become_unattached(epoch e, node_id voted);
  void become_prospective();
  void become_candidate();
  void become_leader();
  void become_follower(epoch e, node_id leader);
  void become_resigned(std::vector<node_id> successors);
  // A peer reported a leader and epoch: follow it when it is newer (or when
  // it names the leader of our epoch we did not know of). True when that
  // changed our role; the message that told is then no longer ours to act on.
  bool observe_leader(const leader_and_epoch& le);

  // Requests.
  void send_votes();
  void send_begin_epochs(bool only_due);
  void send_end_epochs();
  // A Fetch to the leader, when following and none is in flight, no
  // snapshot is being copied and no backoff runs, from the durable end.
  void maybe_send_fetch();
  void send_snapshot_fetch();

  // The newest voter set changed (raft_voters.h): the leader counts the new
  // set, a node that stopped being a voter stops standing, one that became
  // one may stand.
  void on_voters_changed();
  // The leader moves the high watermark to what a majority of the voters
  // holds; once the removal of itself is committed, it resigns.
  void leader_commit();

 private:
  // A new round of (pre-)votes with our own; true when that is already a
  // majority (the only voter).
  bool start_vote_round();

  raft_context& c_;
};

}  // namespace hw::controller::raft
