#pragma once
// The raft core's vocabulary: node ids, epochs and offsets as strong types
// (borrowed from storage/), a voter set (KIP-853), a log entry (one KRaft
// batch) and a snapshot id.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/wire/uuid.h"
#include "storage/types.h"

namespace hw::controller::raft {

using node_id = storage::node_id;
using epoch = storage::leader_epoch;  // the quorum epoch, also every batch's partition leader epoch
using offset = storage::offset;

inline constexpr node_id no_node{-1};

// A voter of a dynamic quorum (KIP-853), as a VotersRecord names it: its id
// and metadata log directory (the pair is the voter: a controller whose disk
// was replaced is another voter), the endpoints of its controller listeners
// and the kraft.version levels it supports. The core decides with the id
// and directory; the endpoints pass through to the driver.
struct voter_endpoint {
  std::string name;  // listener name, e.g. CONTROLLER
  std::string host;
  uint16_t port = 0;
  bool operator==(const voter_endpoint&) const = default;
};

struct voter {
  node_id id = no_node;
  protocol::uuid directory_id;  // zero: unknown (a static quorum's voters)
  std::vector<voter_endpoint> endpoints;
  int16_t min_kraft_version = 0;
  int16_t max_kraft_version = 1;
  bool operator==(const voter&) const = default;
};

// The voters, sorted by id, at most one per id.
struct voter_set {
  std::vector<voter> voters;

  const voter* find(node_id id) const;
  bool contains(node_id id) const { return find(id) != nullptr; }
  // Whether (id, directory) is a voter: the id is, and with the same
  // directory unless either directory is unknown (zero).
  bool contains(node_id id, const protocol::uuid& directory) const;
  std::vector<node_id> ids() const;
  size_t size() const { return voters.size(); }
  size_t majority() const { return voters.size() / 2 + 1; }
  // A copy with v added (kept sorted); v's id must not be in the set.
  voter_set with(voter v) const;
  // A copy without the voter of this id.
  voter_set without(node_id id) const;
  // A static quorum's set (controller.quorum.voters): ids only.
  static voter_set of_ids(const std::vector<node_id>& ids);
  bool operator==(const voter_set&) const = default;
};

// One batch of the metadata log: `records.size()` records at consecutive
// offsets from base_offset, all written by the leader of `leader_epoch`.
// Records are opaque to the core. A control entry is either the LeaderChange
// batch a new leader writes first (one record, the LeaderChangeMessage made
// by raft_options::leader_change_record, empty without one) or, when
// `voters` is set, a KRaftVoters batch: one VotersRecord (made by
// raft_options::voters_record) whose voter set holds from this offset on.
struct log_entry {
  offset base_offset{0};
  epoch leader_epoch{0};
  bool control = false;
  std::vector<std::vector<uint8_t>> records;
  // The leader's clock when it appended the batch: every replica writes the
  // same timestamp, so every replica's batch is the same bytes.
  int64_t append_time_ms = 0;
  std::optional<voter_set> voters = std::nullopt;  // a KRaftVoters control entry: the set it writes

  offset end_offset() const { return base_offset + static_cast<int64_t>(records.size()); }
  bool operator==(const log_entry&) const = default;
};

// A snapshot covers the log up to end_offset (exclusive); epoch is the epoch
// of the last entry it covers (Kafka's OffsetAndEpoch / SnapshotId).
struct snapshot_id {
  offset end_offset{0};
  epoch leader_epoch{0};
  bool operator==(const snapshot_id&) const = default;
};

// A snapshot's bytes, opaque to the core (shared: the leader serves chunks
// of it to several followers).
using snapshot_payload = std::shared_ptr<const std::vector<uint8_t>>;

// What quorum-state holds: must be durable before any message that depends
// on it (a granted vote, a claim of leadership) leaves the node.
struct persistent_state {
  epoch current_epoch{0};
  node_id leader_id = no_node;
  node_id voted_id = no_node;
  bool operator==(const persistent_state&) const = default;
};

}  // namespace hw::controller::raft
