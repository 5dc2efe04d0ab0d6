#pragma once
// What goes into and out of raft_core (raft_core.h): its options, what the
// driver loaded from disk, the ready it hands out, a proposal's result.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "controller/raft/raft_messages.h"
#include "controller/raft/raft_types.h"

namespace hw::controller::raft {

// Rule switches that make the core WRONG on purpose, so that tests can prove
// the simulation's checker catches a broken rule. Never set outside tests.
struct unsafe_test_switches {
  bool grant_votes_without_log_check = false;
};

struct raft_options {
  node_id self = no_node;
  // The static voter set (controller.quorum.voters, kraft.version 0); empty
  // for a dynamic quorum (KIP-853), whose set is in the log
  // (raft_voters.h).
  std::vector<node_id> voters;
  // Whom a node without a leader asks who leads (controller.quorum.bootstrap.
  // servers, under ids the driver gives them) when it knows no voter.
  std::vector<node_id> bootstrap;
  // This node's metadata log directory: with its id, the voter it is.
  protocol::uuid directory_id;
  int64_t election_timeout_ms = 1000;  // controller.quorum.election.timeout.ms; randomized in [t, 2t)
  int64_t fetch_timeout_ms = 2000;     // controller.quorum.fetch.timeout.ms
  int64_t request_timeout_ms = 2000;   // controller.quorum.request.timeout.ms: resend after
  int64_t retry_backoff_ms = 20;       // controller.quorum.retry.backoff.ms: after an error answer
  int64_t fetch_max_wait_ms = 500;     // the hint in fetch_request
  size_t fetch_max_records = 4096;     // per fetch response
  int32_t fetch_snapshot_max_bytes = 1 << 20;  // per FetchSnapshot request
  size_t max_uncommitted_records = 1 << 16;  // propose() refuses beyond this
  // The record of the LeaderChange control entry a new leader appends
  // (the driver encodes Kafka's LeaderChangeMessage, naming the voters it
  // counts); none: an empty record.
  std::function<std::vector<uint8_t>(node_id leader, epoch e, const std::vector<node_id>& voters)>
      leader_change_record;
  // The VotersRecord of a KRaftVoters entry the leader appends (a voter
  // added or removed); none: an empty record.
  std::function<std::vector<uint8_t>(const voter_set&)> voters_record;
  // The KRaftVersionRecord of a level, written before the first VotersRecord
  // of the log.
  std::function<std::vector<uint8_t>(int16_t level)> kraft_version_record;
  // The voter set a snapshot copied from the leader holds (its KRaftVoters
  // record); none: the set stays as it was (a static quorum's).
  std::function<std::optional<voter_set>(const std::vector<uint8_t>&)> snapshot_voters;
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
  // The voter set the snapshot holds (a dynamic quorum's bootstrap
  // checkpoint, or a later snapshot's KRaftVoters record); ignored when
  // raft_options::voters is set.
  std::optional<voter_set> snapshot_voters;
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

}  // namespace hw::controller::raft
