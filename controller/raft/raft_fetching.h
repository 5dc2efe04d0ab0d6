#pragma once
// Inside raft_core: what the replication messages do. The leader answers
// Fetch (entries, a diverging epoch, or the snapshot to copy first) and
// FetchSnapshot; a follower appends what it fetched, cuts its log back where
// it diverged, copies the leader's snapshot chunk by chunk and installs it
// through the ready, and fetches again.
//
// Owner/thread: raft_core, on the raft strand; works on its raft_context
// and moves between roles through its raft_transitions.

#include "controller/raft/raft_context.h"
#include "controller/raft/raft_transitions.h"

namespace hw::controller::raft {

class raft_fetching {
 public:
  raft_fetching(raft_context& c, raft_transitions& t) : c_(c), t_(t) {}

  void on(node_id from, const fetch_request& m);
  void on(node_id from, const fetch_response& m);
  void on(node_id from, const fetch_snapshot_request& m);
  void on(node_id from, const fetch_snapshot_response& m);

 private:
  // Why a Fetch or FetchSnapshot for epoch `e` is refused (none: serve it).
  protocol::error_code refusal(epoch e) const;
  void on_fetched(const fetch_response& m);
  void install_copied_snapshot();

  raft_context& c_;
  raft_transitions& t_;
};

}  // namespace hw::controller::raft
