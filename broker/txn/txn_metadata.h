#pragma once
// One transactional id's state at its coordinator, and the rules for moving
// it (broker/txn/README.md). Pure: no I/O, no clock (times come in as
// arguments), not thread-safe (the owning shard's strand calls it).
//
// A change is two steps. prepare_*() checks that the move is legal, builds
// the target (txn_transit, what the __transaction_state record will say)
// and marks the metadata pending, so that no other change starts; once the
// record is durable, complete() checks the target against the current state
// once more and applies it. A failed write calls abandon() instead.

#include <cstdint>
#include <climits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "protocol/error_code.h"

namespace hw::broker::txn {

// TransactionStatus in __transaction_state: the ids are Kafka's.
enum class txn_state : int8_t {
  empty = 0,
  ongoing = 1,
  prepare_commit = 2,
  prepare_abort = 3,
  complete_commit = 4,
  complete_abort = 5,
  dead = 6,
  prepare_epoch_fence = 7,
};

// Kafka's names, as DescribeTransactions and ListTransactions return them
// ("Empty", "Ongoing", "PrepareCommit", ..., "Dead", "PrepareEpochFence").
std::string_view state_name(txn_state s);
std::optional<txn_state> state_from_name(std::string_view name);
std::optional<txn_state> state_from_id(int8_t id);
// Whether `to` may follow `from` (Kafka's validPreviousStates).
bool may_follow(txn_state from, txn_state to);

constexpr int64_t k_no_producer_id = -1;
constexpr int16_t k_no_producer_epoch = -1;

// An epoch at Short.MAX_VALUE - 1 or above is used up: the coordinator keeps
// the last one to fence with, so a new producer id is needed.
inline bool epoch_exhausted(int16_t epoch) { return epoch >= INT16_MAX - 1; }

// The client's transaction.version: 2 (KIP-890 part 2) bumps the epoch at
// every EndTxn; 0 and 1 do not.
inline bool bumps_epoch_at_end(int16_t client_version) { return client_version >= 2; }

using txn_topic_partition = std::pair<std::string, int32_t>;
using txn_partitions = std::set<txn_topic_partition>;

// The target of a change: every field of the record to write.
struct txn_transit {
  int64_t producer_id = k_no_producer_id;
  int64_t prev_producer_id = k_no_producer_id;
  int64_t next_producer_id = k_no_producer_id;
  int16_t producer_epoch = k_no_producer_epoch;
  int16_t last_producer_epoch = k_no_producer_epoch;
  int32_t timeout_ms = 0;
  txn_state state = txn_state::empty;
  txn_partitions partitions;
  int64_t start_ms = -1;
  int64_t last_update_ms = -1;
  int16_t client_version = 0;
  bool operator==(const txn_transit&) const = default;
};

// What a prepare gives: the target, or why not. An `illegal` failure is a
// coordinator bug (Kafka's IllegalStateException), answered as
// UNKNOWN_SERVER_ERROR; the others are the client's errors.
struct txn_prepared {
  std::optional<txn_transit> transit;
  protocol::error_code error = protocol::error_code::none;
  std::string illegal;
  bool ok() const { return transit.has_value(); }
};

class txn_metadata {
 public:
  // A new id (InitProducerId of an id the coordinator does not know):
  // Empty, with no epoch yet.
  txn_metadata(std::string transactional_id, int64_t producer_id, int32_t timeout_ms, int64_t now_ms);
  // As loaded from __transaction_state: the record's fields, nothing pending.
  txn_metadata(std::string transactional_id, const txn_transit& loaded);

  const std::string& transactional_id() const { return id_; }
  int64_t producer_id() const { return current_.producer_id; }
  int64_t prev_producer_id() const { return current_.prev_producer_id; }
  int64_t next_producer_id() const { return current_.next_producer_id; }
  int16_t producer_epoch() const { return current_.producer_epoch; }
  int16_t last_producer_epoch() const { return current_.last_producer_epoch; }
  int32_t timeout_ms() const { return current_.timeout_ms; }
  txn_state state() const { return current_.state; }
  const txn_partitions& partitions() const { return current_.partitions; }
  int64_t start_ms() const { return current_.start_ms; }
  int64_t last_update_ms() const { return current_.last_update_ms; }
  int16_t client_version() const { return current_.client_version; }
  std::optional<txn_state> pending() const { return pending_; }
  bool has_pending() const { return pending_.has_value(); }
  bool failed_epoch_fence() const { return failed_epoch_fence_; }
  bool epoch_exhausted() const { return txn::epoch_exhausted(current_.producer_epoch); }
  // The fields as a record would carry them (for describe and tests).
  const txn_transit& current() const { return current_; }

  // InitProducerId after a fence of an ongoing transaction: the epoch goes
  // up by one (not again if the last fence's write failed) and the
  // transaction is to be aborted.
  txn_prepared prepare_fence_epoch();
  // InitProducerId: a new epoch (and no partitions). `expected_epoch` is the
  // epoch a producer resuming after an error says it had: the current one
  // (bump), the previous one (a retry of a bump that succeeded: no change),
  // else PRODUCER_FENCED.
  txn_prepared prepare_increment_epoch(int32_t timeout_ms, std::optional<int16_t> expected_epoch, int64_t now_ms);
  // InitProducerId when the epoch is used up: a new producer id at epoch 0.
  txn_prepared prepare_rotate_producer_id(int64_t new_producer_id, int32_t timeout_ms, int64_t now_ms,
                                          bool record_last_epoch);
  // AddPartitionsToTxn (or a v2 client's first Produce): Ongoing with these
  // partitions added; a new transaction starts its clock now.
  txn_prepared prepare_add_partitions(const txn_partitions& added, int64_t now_ms, int16_t client_version);
  // EndTxn (or an abort the coordinator starts): PrepareCommit or
  // PrepareAbort. Version 2 clients get the epoch bumped here;
  // `next_producer_id` is the id to move to when that bump exhausts the
  // epoch. `no_partition_added` (v2 may abort a transaction that never
  // added a partition) starts the transaction's clock now.
  txn_prepared prepare_abort_or_commit(txn_state to, int16_t client_version, int64_t next_producer_id, int64_t now_ms,
                                       bool no_partition_added);
  // Every marker written: CompleteCommit or CompleteAbort, no partitions;
  // an exhausted v2 epoch moves to the next producer id at epoch 0.
  txn_prepared prepare_complete(int64_t now_ms);
  // Expiring an idle id: Dead (written as a tombstone).
  txn_prepared prepare_dead();

  // The target's record is durable: apply it. Returns what was wrong with
  // it (a coordinator bug; nothing changes) or nothing.
  std::optional<std::string> complete(const txn_transit& transit);
  // The target's write failed: nothing changes, nothing is pending. A fence
  // whose write failed is remembered so that a retry does not bump again.
  void abandon();

  // For the epoch fence: once PrepareEpochFence is pending, EndTxn(ABORT)
  // takes over with the fenced epoch (Kafka clears the pending state and
  // sets the epoch before preparing the abort).
  void take_over_fence(int16_t fenced_epoch);
  // A marker reached a partition (or its topic is gone): it leaves the set.
  // Only while the transaction is PrepareCommit/PrepareAbort (else false,
  // nothing changes).
  bool remove_partition(const txn_topic_partition& tp);

 private:
  txn_prepared prepare(txn_transit target);
  bool valid_epoch(const txn_transit& t) const;
  bool valid_epoch_bump(const txn_transit& t) const;

  std::string id_;
  txn_transit current_;
  std::optional<txn_state> pending_;
  bool failed_epoch_fence_ = false;
  // The pending PrepareAbort is a fence's (take_over_fence).
  bool fence_in_flight_ = false;
};

}  // namespace hw::broker::txn
