#pragma once
// The raft core's in-memory copy of the metadata log from its log start: the
// entries (batches) the driver loaded at start-up plus what was appended
// since, and the snapshot that replaces everything before the log start.
// Answers the questions the raft rules ask: last epoch and end offset (log
// up-to-dateness), where an epoch ends (divergence), which batches to send.
//
// Owner/thread: a member of raft_core, on the raft strand.

#include <cstddef>
#include <optional>
#include <vector>

#include "controller/raft/raft_messages.h"
#include "controller/raft/raft_types.h"

namespace hw::controller::raft {

class raft_log {
 public:
  // `snapshot` is where the log starts (end offset 0, epoch 0 without one);
  // entries must be contiguous from it.
  raft_log(snapshot_id snapshot, std::vector<log_entry> entries);

  offset start_offset() const { return snapshot_.end_offset; }
  const snapshot_id& snapshot() const { return snapshot_; }
  offset end_offset() const { return entries_.empty() ? snapshot_.end_offset : entries_.back().end_offset(); }
  // The epoch of the last entry (the snapshot's epoch when there is none).
  epoch last_epoch() const { return entries_.empty() ? snapshot_.leader_epoch : entries_.back().leader_epoch; }
  const std::vector<log_entry>& entries() const { return entries_; }

  // The largest epoch <= e that this log knows and the offset where it ends
  // (the start of the next larger epoch, or the log end). An epoch below the
  // snapshot's answers the snapshot's id.
  epoch_end_offset end_offset_for_epoch(epoch e) const;

  // The epoch of the record at offset o (start <= o < end).
  epoch epoch_at(offset o) const;

  // Appends an entry that must start at end_offset().
  void append(log_entry e);
  // Removes everything from the batch holding `o` on; returns the new end.
  offset truncate_to(offset o);
  // Replaces the whole log with a snapshot (a follower that fell behind).
  void reset_to_snapshot(snapshot_id s);
  // Drops the entries a snapshot covers; s.end_offset must be a batch
  // boundary inside the log.
  void compact_to(snapshot_id s);
  // Whether a batch starts (or the log ends) at o.
  bool is_batch_boundary(offset o) const;

  // Batches from the one holding `from` on, at most max_records records
  // (at least one batch when there is one).
  std::vector<log_entry> read(offset from, size_t max_records) const;

 private:
  // Index of the batch holding o, or entries_.size() when o >= end.
  size_t index_of(offset o) const;

  snapshot_id snapshot_;
  std::vector<log_entry> entries_;
};

}  // namespace hw::controller::raft
