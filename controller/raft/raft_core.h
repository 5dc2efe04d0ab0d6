#pragma once
// The KRaft consensus core: elections (with pre-vote, KIP-996), pull
// replication by Fetch, the high watermark, check-quorum and graceful
// resignation (KIP-595), as a pure state machine. No I/O, no clock, no
// randomness of its own: the driver feeds it time (`tick`), peer messages
// (`receive`), proposals (`propose`) and fsync completions (`persisted`), and
// acts on the `ready` it hands out (etcd-raft's Ready shape).
//
// Driver contract for one ready (`take_ready()`), in this order:
//   1. `state`: write quorum-state durably (a granted vote or a claim of
//      leadership in `messages` depends on it);
//   2. `install_snapshot`: store it durably, drop the whole log, reload the
//      state machine from it;
//   3. `truncate_to`: cut the log there; then append `entries` (they need
//      not be fsynced before the messages go);
//   4. send `messages`;
//   5. apply committed records up to `high_watermark`; act on `leader`.
// Later, once the log is fsynced up to some offset, call `persisted(end)`
// with the log end that fsync covered. A follower fetches only from its
// durable end, and the leader counts itself in the high watermark only up to
// its durable end: a record is committed only when a majority holds it on
// disk. Time only moves through tick(); receive() uses the last tick's time.
//
// The voter set is static (controller.quorum.voters) or, in a dynamic quorum
// (KIP-853), the newest KRaftVoters entry of the log (raft_voters.h); the
// leader adds and removes voters one at a time (raft_membership.h).
//
// Not done here: cluster id checks, wire translation, Fetch long-polling
// (fetch_request.max_wait_ms is a hint for the leader's driver), the
// ApiVersions the leader asks a new voter for (the driver, between
// begin_add_voter and finish_add_voter).
//
// Inside, the core is split the way Kafka's raft client is: the shared state
// (raft_context.h), the per-role state (raft_roles.h, one class per role as
// Kafka's EpochState), the moves between roles (raft_transitions.h), and
// the message handlers by family (raft_election.h: votes, BeginQuorumEpoch,
// EndQuorumEpoch; raft_fetching.h: Fetch, FetchSnapshot). This class is
// the front the driver sees.
//
// Owner/thread: the raft driver, on the raft strand; not thread-safe.

#include <cstdint>
#include <map>
#include <vector>

#include "controller/raft/raft_context.h"
#include "controller/raft/raft_election.h"
#include "controller/raft/raft_fetching.h"
#include "controller/raft/raft_interface.h"
#include "controller/raft/raft_log.h"
#include "controller/raft/raft_membership.h"
#include "controller/raft/raft_messages.h"
#include "controller/raft/raft_roles.h"
#include "controller/raft/raft_transitions.h"
#include "controller/raft/raft_types.h"

namespace hw::controller::raft {

class raft_core {
 public:
  raft_core(raft_options options, raft_disk_state disk, int64_t now_ms);
  // The parts inside hold a reference to the shared state and nothing
  // else: a moved core gets its own parts over the state it took.
  raft_core(raft_core&& other) noexcept : c_(std::move(other.c_)) {}
  raft_core& operator=(raft_core&& other) noexcept {
    c_ = std::move(other.c_);
    return *this;
  }
  raft_core(const raft_core&) = delete;
  raft_core& operator=(const raft_core&) = delete;

  void tick(int64_t now_ms);
  void receive(node_id from, const message& m);
  propose_result propose(std::vector<std::vector<uint8_t>> records);
  // The log is durable up to `end` (exclusive): the log end when an fsync
  // started that was issued after the driver applied the latest ready.
  void persisted(offset end);
  // Graceful resignation (controlled shutdown): EndQuorumEpoch to the voters.
  void resign();
  // The driver wrote a snapshot of the committed state up to s.end_offset
  // (<= high watermark, at a batch end): the log may now start there.
  // False (and nothing changes) when s is not such a point.
  bool compact(snapshot_id s, snapshot_payload bytes);

  // Voter changes at the leader (raft_membership.h): the KRaftVoters entry
  // of an accepted change is answered once the high watermark passes it.
  voter_change begin_add_voter(const voter& v) { return membership_.begin_add(v); }
  voter_change finish_add_voter(const voter& v) { return membership_.finish_add(v); }
  void abort_add_voter() { membership_.abort_add(); }
  voter_change remove_voter(node_id id, const protocol::uuid& directory) { return membership_.remove(id, directory); }
  voter_change update_voter(const voter& v, const std::string& default_listener) {
    return membership_.update(v, default_listener);
  }
  // The voters this node counts now, and whether the quorum is dynamic.
  const voter_set& voters() const { return c_.voters.latest(); }
  const voter_set& voters_at(offset o) const { return c_.voters.at(o); }
  // The directory a replica last fetched with, as the leader saw it (zero:
  // unknown).
  protocol::uuid replica_directory(node_id id) const { return c_.leader.directory_of(id); }
  bool dynamic_quorum() const { return c_.voters.is_dynamic(); }

  bool has_ready() const { return !c_.pending.empty(); }
  ready take_ready();

  role current_role() const { return c_.current_role; }
  bool is_voter() const { return c_.is_voter(); }
  epoch current_epoch() const { return c_.state.current_epoch; }
  node_id leader_id() const { return c_.state.leader_id; }
  node_id voted_id() const { return c_.state.voted_id; }
  offset high_watermark() const { return c_.high_watermark; }
  offset durable_end() const { return c_.durable_end; }
  const raft_log& log() const { return c_.log; }
  // The leader's view of each replica (voters, and observers that fetched):
  // its durable end and when it last fetched; empty unless leading.
  std::map<node_id, replica_view> replica_views() const { return c_.leader.views(c_.durable_end, c_.now_ms); }
  // Where the leader's epoch starts (its LeaderChange entry); meaningful
  // while leading.
  offset epoch_start_offset() const { return c_.leader.epoch_start_offset(); }

 private:
  raft_context c_;
  raft_transitions transitions_{c_};
  raft_election election_{c_, transitions_};
  raft_fetching fetching_{c_, transitions_};
  raft_membership membership_{c_, transitions_};
};

}  // namespace hw::controller::raft
