#pragma once
// The transactional ids of one __transaction_state partition and whether
// this broker serves them, after Kafka 4.3's TransactionStateManager: the
// partition's mode (inactive, loading, active) and coordinator epoch, the
// txn_metadata of every id (replayed from the log at load), the count of
// open transactions, and the reads DescribeTransactions and
// ListTransactions make. It writes nothing: the txn_shard prepares
// transitions on the metadata here and appends their records. Owned by the
// txn_shard; runs on its partition's strand.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/txn/txn_metadata.h"
#include "protocol/error_code.h"

namespace hw::broker::txn {

// One transactional id as DescribeTransactions and ListTransactions show it.
struct txn_description {
  std::string transactional_id;
  int64_t producer_id = k_no_producer_id;
  int16_t producer_epoch = k_no_producer_epoch;
  txn_state state = txn_state::empty;
  int32_t timeout_ms = 0;
  int64_t start_ms = -1;
  txn_partitions partitions;
};

struct list_filter {
  std::vector<txn_state> states;      // empty: all
  std::vector<int64_t> producer_ids;  // empty: all
  int64_t min_duration_ms = -1;       // open longer than this (v1's DurationFilter); -1: all
};

class txn_state_manager {
 public:
  using id_map = std::map<std::string, txn_metadata, std::less<>>;

  explicit txn_state_manager(int32_t partition) : partition_(partition) {}

  int32_t partition() const { return partition_; }
  bool active() const { return mode_ == mode::active; }
  bool loading() const { return mode_ == mode::loading; }
  int32_t coordinator_epoch() const { return coordinator_epoch_; }
  // The error a request gets when the partition cannot take it
  // (COORDINATOR_LOAD_IN_PROGRESS or NOT_COORDINATOR), else none.
  protocol::error_code not_serving() const;

  // --- load and unload ------------------------------------------------------
  // coordinator_epoch: the partition's leader epoch here.
  void begin_load(int32_t coordinator_epoch);
  // One record in log order; false (nothing applied, `error` says why) for
  // a record that does not decode. The last record of an id is its state.
  bool load(std::span<const uint8_t> key, std::optional<std::span<const uint8_t>> value, std::string* error);
  void activate() { mode_ = mode::active; }
  // Everything is forgotten until the next load.
  void unload();

  // --- the ids --------------------------------------------------------------
  const txn_metadata* find(std::string_view transactional_id) const;
  txn_metadata* find_mutable(std::string_view transactional_id);
  txn_metadata& create(const std::string& transactional_id, txn_metadata metadata);
  // After the tombstone of an idle id is durable.
  void erase(const std::string& transactional_id);
  const id_map& ids() const { return ids_; }
  id_map& ids() { return ids_; }
  size_t size() const { return ids_.size(); }
  // Keeps the open count right when an id's state went from `before` to `after`.
  void note_state_change(txn_state before, txn_state after);
  // Transactions begun and not yet complete (Ongoing, PrepareCommit,
  // PrepareAbort, PrepareEpochFence), for the metrics; kept as the states
  // change, so reading it costs nothing.
  int64_t open_transactions() const { return open_; }

  // --- reads ----------------------------------------------------------------
  // nullopt: not known here (TRANSACTIONAL_ID_NOT_FOUND).
  std::optional<txn_description> describe(std::string_view transactional_id) const;
  std::vector<txn_description> list(const list_filter& filter, int64_t now_ms) const;

 private:
  enum class mode { inactive, loading, active };

  int32_t partition_;
  mode mode_ = mode::inactive;
  int32_t coordinator_epoch_ = -1;
  id_map ids_;
  int64_t open_ = 0;  // ids_ in an open state
};

}  // namespace hw::broker::txn
