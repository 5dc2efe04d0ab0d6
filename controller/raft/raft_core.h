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
// Not done here: cluster id checks, wire translation, Fetch long-polling
// (fetch_request.max_wait_ms is a hint for the leader's driver), voter set
// changes (KIP-853: the voter set is static), observers' bootstrap servers
// (an observer asks the voters in turn).
//
// Owner/thread: the raft driver, on the raft strand; not thread-safe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <variant>
#include <vector>

#include "controller/raft/raft_log.h"
#include "controller/raft/raft_messages.h"
#include "controller/raft/raft_roles.h"
#include "controller/raft/raft_types.h"

namespace hw::controller::raft {

// Rule switches that make the core WRONG on purpose, so that tests can prove
// the simulation's checker catches a broken rule. Never set outside tests.
struct unsafe_test_switches {
  bool grant_votes_without_log_check = false;
};

struct raft_options {
  node_id self = no_node;
  std::vector<node_id> voters;  // the static voter set (controller.quorum.voters)
  int64_t election_timeout_ms = 1000;  // controller.quorum.election.timeout.ms; randomized in [t, 2t)
  int64_t fetch_timeout_ms = 2000;     // controller.quorum.fetch.timeout.ms
  int64_t request_timeout_ms = 2000;   // controller.quorum.request.timeout.ms: resend after
  int64_t retry_backoff_ms = 20;       // controller.quorum.retry.backoff.ms: after an error answer
  int64_t fetch_max_wait_ms = 500;     // the hint in fetch_request
  size_t fetch_max_records = 4096;     // per fetch response
  int32_t fetch_snapshot_max_bytes = 1 << 20;  // per FetchSnapshot request
  size_t max_uncommitted_records = 1 << 16;  // propose() refuses beyond this
  // The record of the LeaderChange control entry a new leader appends
  // (the driver encodes Kafka's LeaderChangeMessage); none: an empty record.
  std::function<std::vector<uint8_t>(node_id leader, epoch e)> leader_change_record;
  // Returns a number in [lo, hi); the only source of randomness.
  std::function<int64_t(int64_t lo, int64_t hi)> random;
  unsafe_test_switches unsafe;
};

// What the driver loaded from disk.
struct raft_disk_state {
  persistent_state state;
  snapshot_id snapshot;            // where the log starts
  snapshot_payload snapshot_bytes;  // its content, served to followers that need it
  std::vector<log_entry> entries;  // from the snapshot on; all durable
};

struct ready {
  std::optional<persistent_state> state;
  std::optional<offset> truncate_to;
  std::vector<log_entry> entries;
  std::vector<outbound> messages;
  // A snapshot fetched from the leader: store it durably and replace the
  // whole log with it (before `entries`, which follow it, and before
  // `messages`); the state machine reloads from it.
  std::optional<std::pair<snapshot_id, snapshot_payload>> install_snapshot;
  std::optional<offset> high_watermark;     // moved: apply [previous, this)
  std::optional<leader_and_epoch> leader;   // the known leader or epoch changed

  bool empty() const {
    return !state && !truncate_to && entries.empty() && messages.empty() && !install_snapshot && !high_watermark &&
           !leader;
  }
};

enum class propose_error { none, not_leader, too_many_uncommitted, empty_batch };
struct propose_result {
  propose_error error = propose_error::none;
  offset base_offset{-1};  // of the first record, when accepted
};

class raft_core {
 public:
  raft_core(raft_options options, raft_disk_state disk, int64_t now_ms);

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

  bool has_ready() const { return !pending_.empty(); }
  ready take_ready();

  role current_role() const { return role_; }
  bool is_voter() const;
  epoch current_epoch() const { return state_.current_epoch; }
  node_id leader_id() const { return state_.leader_id; }
  node_id voted_id() const { return state_.voted_id; }
  offset high_watermark() const { return high_watermark_; }
  offset durable_end() const { return durable_end_; }
  const raft_log& log() const { return log_; }
  // The leader's view of each replica (voters, and observers that fetched):
  // its durable end and when it last fetched; empty unless leading.
  std::map<node_id, replica_view> replica_views() const { return leader_.views(durable_end_, now_ms_); }
  // Where the leader's epoch starts (its LeaderChange entry); meaningful
  // while leading.
  offset epoch_start_offset() const { return leader_.epoch_start_offset(); }

 private:
  // Transitions (each sets the persistent state it implies).
  void become_unattached(epoch e, node_id voted);
  void become_prospective();
  void become_candidate();
  void become_leader();
  void become_follower(epoch e, node_id leader);
  void become_resigned(std::vector<node_id> successors);
  void set_state(persistent_state s);
  // A peer reported a leader/epoch: follow it when it is newer.
  bool observe_leader(const leader_and_epoch& le);

  // Peer messages (raft_core_handlers.cc, raft_core_snapshot.cc).
  void on(node_id from, const vote_request& m);
  void on(node_id from, const vote_response& m);
  void on(node_id from, const begin_quorum_epoch_request& m);
  void on(node_id from, const begin_quorum_epoch_response& m);
  void on(node_id from, const end_quorum_epoch_request& m);
  void on(node_id from, const end_quorum_epoch_response& m);
  void on(node_id from, const fetch_request& m);
  void on(node_id from, const fetch_response& m);
  void on(node_id from, const fetch_snapshot_request& m);
  void on(node_id from, const fetch_snapshot_response& m);
  void on_fetched(const fetch_response& m);
  // Why a Fetch or FetchSnapshot for epoch `e` is refused (none: serve it).
  protocol::error_code fetch_refusal(epoch e) const;

  // Requests the core sends.
  void send(node_id to, message m) { pending_.messages.push_back(outbound{to, std::move(m)}); }
  void send_votes();
  void send_end_epochs();
  void send_begin_epochs(bool only_due);
  void maybe_send_fetch();
  void send_snapshot_fetch();

  void set_hw(offset hw);
  void note_leader_change();
  int64_t random_election_timeout();
  int64_t follower_deadline();
  size_t majority() const { return options_.voters.size() / 2 + 1; }
  leader_and_epoch current_leader() const { return {state_.leader_id, state_.current_epoch}; }

  raft_options options_;
  persistent_state state_;
  raft_log log_;
  role role_ = role::unattached;
  int64_t now_ms_ = 0;
  offset durable_end_{0};
  offset high_watermark_{0};
  uint64_t next_correlation_ = 1;
  snapshot_payload snapshot_bytes_;  // ours, served when leading

  // Election (unattached, prospective, candidate, resigned) or fetch
  // (follower) or check-quorum (leader) deadline.
  int64_t deadline_ms_ = 0;
  voter_round votes_;      // votes or pre-votes this round (prospective, candidate)
  fetch_progress fetch_;   // follower, leaderless observer
  leader_progress leader_;  // leader
  voter_round end_epochs_;  // resigned: who answered our EndQuorumEpoch
  std::vector<node_id> resign_successors_;

  leader_and_epoch last_reported_leader_{no_node, epoch{-1}};
  ready pending_;
};

}  // namespace hw::controller::raft
