#pragma once
// Inside raft_core: what the election messages do. Vote (and pre-vote,
// KIP-996) requests and answers; BeginQuorumEpoch, by which a new leader
// makes itself known; EndQuorumEpoch, by which a resigning leader hands
// over to its most caught-up successors first.
//
// Owner/thread: raft_core, on the raft strand; works on its raft_context
// and moves between roles through its raft_transitions.

#include "controller/raft/raft_context.h"
#include "controller/raft/raft_transitions.h"

namespace hw::controller::raft {

class raft_election {
 public:
  raft_election(raft_context& c, raft_transitions& t) : c_(c), t_(t) {}

  void on(node_id from, const vote_request& m);
  void on(node_id from, const vote_response& m);
  void on(node_id from, const begin_quorum_epoch_request& m);
  void on(node_id from, const begin_quorum_epoch_response& m);
  void on(node_id from, const end_quorum_epoch_request& m);
  void on(node_id from, const end_quorum_epoch_response& m);

 private:
  raft_context& c_;
  raft_transitions& t_;
};

}  // namespace hw::controller::raft
