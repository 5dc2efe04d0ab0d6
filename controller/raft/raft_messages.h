#pragma once
// The messages the raft core exchanges with its peers, as plain structs. The
// raft driver translates them to and from Kafka's wire messages (Vote v2,
// BeginQuorumEpoch, EndQuorumEpoch, Fetch with ReplicaState, FetchSnapshot);
// field names and meanings follow KRaft's (KIP-595, KIP-996) so that the
// translation is a field-by-field copy. What the wire has and the core does
// not care about (cluster id, directory ids, endpoints, topic/partition
// framing) is the driver's business.
//
// `correlation` is not a Kafka field: the driver maps it to the request's
// correlation id, and copies it from a request into its response, so that a
// stale or duplicated response cannot be mistaken for the current one.

#include <cstdint>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "controller/raft/raft_types.h"
#include "protocol/error_code.h"

namespace hw::controller::raft {

// Who leads which epoch, as every response reports it (LeaderIdAndEpoch).
struct leader_and_epoch {
  node_id leader_id = no_node;
  epoch leader_epoch{0};
  bool operator==(const leader_and_epoch&) const = default;
};

// Vote (api key 52; Kafka 4.x names as of v2). A candidate sends its bumped
// epoch; with pre_vote (v2+, KIP-996) the sender asks "would you vote for
// me?" without bumping it (replica_epoch is its current epoch) and no one
// records a vote. last_offset is the sender's log end offset (what Kafka
// puts in LastOffset).
struct vote_request {
  uint64_t correlation = 0;
  epoch replica_epoch{0};
  node_id replica_id = no_node;
  epoch last_offset_epoch{0};
  offset last_offset{0};
  bool pre_vote = false;
};
struct vote_response {
  uint64_t correlation = 0;
  protocol::error_code error = protocol::error_code::none;
  leader_and_epoch current;  // the responder's view
  bool vote_granted = false;
  bool pre_vote = false;     // echo, so a late pre-vote answer is never counted as a vote
};

// BeginQuorumEpoch (53): a new leader tells every voter.
struct begin_quorum_epoch_request {
  uint64_t correlation = 0;
  node_id leader_id = no_node;
  epoch leader_epoch{0};
};
struct begin_quorum_epoch_response {
  uint64_t correlation = 0;
  protocol::error_code error = protocol::error_code::none;
  leader_and_epoch current;
};

// EndQuorumEpoch (54): a leader resigning gracefully; the preferred
// successors (most caught-up first) start their election without backoff.
struct end_quorum_epoch_request {
  uint64_t correlation = 0;
  node_id leader_id = no_node;
  epoch leader_epoch{0};
  std::vector<node_id> preferred_successors;
};
struct end_quorum_epoch_response {
  uint64_t correlation = 0;
  protocol::error_code error = protocol::error_code::none;
  leader_and_epoch current;
};

// Fetch (1) as KRaft uses it: pull replication from the leader. replica_id
// is ReplicaState.ReplicaId; fetch_offset is the fetcher's durable log end.
struct fetch_request {
  uint64_t correlation = 0;
  node_id replica_id = no_node;
  epoch current_leader_epoch{-1};
  offset fetch_offset{0};
  epoch last_fetched_epoch{0};
  // A hint for the driver: how long the leader may park an empty answer.
  int64_t max_wait_ms = 0;
  // The high watermark the fetcher knows (KIP-1166, Fetch v18): a leader
  // whose own is ahead answers at once, so the voter whose fetch committed
  // records learns of the commit without waiting out max_wait_ms. Not
  // told: answered as before KIP-1166.
  std::optional<offset> high_watermark;
  // The fetcher's metadata log directory (ReplicaDirectoryId, Fetch v17,
  // KIP-853): the leader tells a controller waiting to be added by it.
  protocol::uuid replica_directory_id{};
};
// DivergingEpoch: the largest epoch <= last_fetched_epoch in the leader's
// log and where it ends there; the fetcher truncates to end_offset.
struct epoch_end_offset {
  epoch leader_epoch{0};
  offset end_offset{0};
  bool operator==(const epoch_end_offset&) const = default;
};
struct fetch_response {
  uint64_t correlation = 0;
  protocol::error_code error = protocol::error_code::none;
  leader_and_epoch current;  // CurrentLeader
  offset high_watermark{0};
  offset log_start_offset{0};
  std::optional<epoch_end_offset> diverging_epoch;
  // Set when fetch_offset is below the leader's log start: fetch this
  // snapshot (FetchSnapshot) first.
  std::optional<snapshot_id> snapshot;
  std::vector<log_entry> entries;  // "records", batch by batch
};

// FetchSnapshot (59): a follower below the leader's log start copies the
// leader's snapshot, chunk by chunk. The payload is opaque to the core.
struct fetch_snapshot_request {
  uint64_t correlation = 0;
  node_id replica_id = no_node;
  epoch current_leader_epoch{-1};
  snapshot_id snapshot;
  int64_t position = 0;  // byte position in the snapshot
  int32_t max_bytes = 0x7fffffff;
};
struct fetch_snapshot_response {
  uint64_t correlation = 0;
  protocol::error_code error = protocol::error_code::none;
  leader_and_epoch current;
  snapshot_id snapshot;
  int64_t size = 0;      // of the whole snapshot
  int64_t position = 0;  // of `bytes`
  std::vector<uint8_t> bytes;  // UnalignedRecords
};

using message = std::variant<vote_request, vote_response, begin_quorum_epoch_request, begin_quorum_epoch_response,
                             end_quorum_epoch_request, end_quorum_epoch_response, fetch_request, fetch_response,
                             fetch_snapshot_request, fetch_snapshot_response>;

// A message to send, with its destination.
struct outbound {
  node_id to = no_node;
  message body;
};

}  // namespace hw::controller::raft
