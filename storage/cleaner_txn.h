#pragma once
// What the cleaner tracks of transactions while it walks a log in offset
// order (Kafka's CleanedTransactionMetadata): which batches belong to
// aborted transactions (dropped), and when a COMMIT/ABORT marker may go.
//
// - Aborted transactions come from the `.txnindex` of the segments being
//   walked (added before each segment); one becomes "ongoing" once the walk
//   reaches its first offset.
// - A transactional data batch of a producer with an ongoing abort is
//   discardable; any other transactional batch marks its producer's
//   transaction as ongoing-committed.
// - An ABORT marker is discardable unless this walk saw data batches of its
//   transaction: then it stays (its data was removed only now), and its
//   entry goes to the cleaned segment's `.txnindex`. A COMMIT marker is
//   discardable unless this walk saw data of its transaction. A control
//   batch that no longer holds a record (emptied earlier) is discardable.
//   Whether a discardable marker really goes is the filter's business: it
//   waits for the delete horizon (cleaner_filter.h).
//
// Owned by one cleaning pass, on the cleaner thread.

#include <optional>
#include <queue>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "protocol/records/record_batch.h"
#include "storage/transaction_index.h"
#include "storage/types.h"

namespace hw::storage {

class cleaner_txn_tracker {
 public:
  void add_aborted_transactions(std::span<const aborted_txn> aborted);
  // A control batch reached by the walk: whether it may be discarded. An
  // ABORT marker kept because its data was seen adds its transaction to
  // *index_entries (for the cleaned `.txnindex`).
  bool on_control_batch_read(const protocol::record_batch_view& batch, std::vector<aborted_txn>* index_entries);
  // A data batch reached by the walk: whether it belongs to an aborted
  // transaction (and may be discarded).
  bool on_batch_read(const protocol::record_batch_view& batch);

 private:
  struct ongoing_abort {
    aborted_txn txn;
    std::optional<offset> last_observed_batch_offset;
  };
  struct later_first_offset {
    bool operator()(const aborted_txn& a, const aborted_txn& b) const { return a.first_offset > b.first_offset; }
  };

  void consume_aborted_up_to(offset o);

  std::unordered_set<int64_t> ongoing_committed_;
  std::unordered_map<int64_t, ongoing_abort> ongoing_aborted_;
  // Min-heap by first offset.
  std::priority_queue<aborted_txn, std::vector<aborted_txn>, later_first_offset> aborted_;
};

}  // namespace hw::storage
