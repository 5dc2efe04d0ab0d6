#pragma once
// The raft core's vocabulary: node ids, epochs and offsets as strong types
// (borrowed from storage/), a log entry (one KRaft batch) and a snapshot id.

#include <cstdint>
#include <memory>
#include <vector>

#include "storage/types.h"

namespace hw::controller::raft {

using node_id = storage::node_id;
using epoch = storage::leader_epoch;  // the quorum epoch, also every batch's partition leader epoch
using offset = storage::offset;

inline constexpr node_id no_node{-1};

// One batch of the metadata log: `records.size()` records at consecutive
// offsets from base_offset, all written by the leader of `leader_epoch`.
// Records are opaque to the core. A control entry is the LeaderChange batch
// a new leader writes first: one record, the LeaderChangeMessage made by
// raft_options::leader_change_record (empty without one).
struct log_entry {
  offset base_offset{0};
  epoch leader_epoch{0};
  bool control = false;
  std::vector<std::vector<uint8_t>> records;
  // The leader's clock when it appended the batch: every replica writes the
  // same timestamp, so every replica's batch is the same bytes.
  int64_t append_time_ms = 0;

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
