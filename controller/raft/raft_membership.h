#pragma once
// Inside raft_core: voter changes at the leader (KIP-853's AddRaftVoter and
// RemoveRaftVoter), with Kafka's checks in Kafka's order and its error
// codes and messages. One change at a time: a change waits until the last
// one is committed, and the leader's own epoch must have committed an entry
// first (its high watermark fences what an older leader may have written).
//
// Adding is two steps, because the leader asks the new voter for its
// ApiVersions in between (the driver does): `begin_add` checks what it can
// without the new voter and marks the operation pending; `finish_add`
// checks that the new voter has caught up as an observer (it fetched up to
// the leader's end, with the same directory, within the last hour) and
// writes the KRaftVoters entry. One timer of controller.quorum.request.
// timeout.ms covers an add from its ApiVersions to its commit (Kafka's);
// the driver answers REQUEST_TIMED_OUT when it ends first, and
// NOT_LEADER_OR_FOLLOWER when the leader's term does. The change is answered once that entry is
// committed (the driver watches the high watermark); a leader that removes
// itself resigns then (raft_transitions::leader_commit).
//
// Owner/thread: raft_core, on the raft strand; works on its raft_context.

#include <string>

#include "controller/raft/raft_context.h"
#include "controller/raft/raft_transitions.h"

namespace hw::controller::raft {

// The outcome of a voter change request so far.
struct voter_change {
  protocol::error_code error = protocol::error_code::none;
  std::string message;  // with an error: Kafka's
  offset entry{-1};     // the KRaftVoters entry written (finish_add, remove)
};

// Kafka's ReplicaKey.toString: "ReplicaKey(id=4, directoryId=<uuid>)".
std::string replica_key_string(node_id id, const protocol::uuid& directory);

class raft_membership {
 public:
  raft_membership(raft_context& c, raft_transitions& t) : c_(c), t_(t) {}

  voter_change begin_add(const voter& v);
  voter_change finish_add(const voter& v);
  // The add ended without an entry (the new voter did not answer, or
  // answered an error): another change may start.
  void abort_add() { pending_until_ms_ = -1; }
  voter_change remove(node_id id, const protocol::uuid& directory);
  // UpdateRaftVoter (Kafka's UpdateVoterHandler, after the request's own
  // checks): a voter's endpoints and kraft.version range replace those of
  // its entry (same id and directory), written at once and answered
  // without waiting for the commit; codes only (the response has no
  // message). A static quorum (kraft.version 0) keeps nothing: Kafka keeps
  // the update in memory for a kraft.version upgrade, which is not built.
  voter_change update(const voter& v, const std::string& default_listener);

 private:
  // The checks every change starts with; none when it may go on: this node
  // leads, no change is under way, its term has committed an entry ...
  voter_change leader_refusal();
  // ... and the newest voter set is committed.
  voter_change uncommitted_refusal() const;
  // Both, with a static quorum's refusal between them (add and remove).
  voter_change common_refusal(const char* verb);
  voter_change append(voter_set next);
  // A change under way (Kafka's pending operation): from an add's
  // ApiVersions, or a removal's entry, until its entry is committed, the
  // leader's term ends or controller.quorum.request.timeout.ms passes.
  bool pending() const;
  void start_pending(offset entry);

  raft_context& c_;
  raft_transitions& t_;
  int64_t pending_until_ms_ = -1;
  epoch pending_epoch_{-1};
  offset pending_entry_{-1};  // -1: an add still waiting for its new voter's ApiVersions
};

}  // namespace hw::controller::raft
