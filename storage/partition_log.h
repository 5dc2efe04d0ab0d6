#pragma once
// One partition's durable state as the broker uses it: the log, its
// leader-epoch cache (`leader-epoch-checkpoint`), its producer state (with
// `.snapshot` files) and `partition.metadata` (the topic id), kept consistent
// with each other by every operation here. A thin composition: the rules
// live in log, leader_epoch_cache and producer_state.
//
// Opening loads the producer state from the latest snapshot at or below the
// recovery point (Kafka's truncateAndReload), feeds it and the epoch cache
// the batches recovery scans, replays from the log whatever the snapshot and
// the scan did not cover, and trims the epoch cache to [log start, log end].
//
// Ownership and threads: owned by the partition (through the log manager);
// one writer, the partition strand, calls every non-const method. Readers
// use log() through its const methods from any thread.
//
// Errors: a failed write is returned and leaves the log offline (see log.h);
// the log manager then takes the whole log dir offline.

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/wire/uuid.h"
#include "storage/io/file_system.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log.h"
#include "storage/producer_state.h"
#include "storage/types.h"

namespace hw::storage {

struct partition_log_options {
  log_config config;
  // From the log dir's checkpoints and clean-shutdown marker.
  offset recovery_point;
  offset log_start_offset;
  bool had_clean_shutdown = false;
  int64_t now_ms = 0;
  uint64_t jitter_seed = 0;
  // producer.id.expiration.ms
  int64_t producer_id_expiration_ms = 86'400'000;
  // Written to partition.metadata when the file is missing (a new partition).
  std::optional<protocol::uuid> topic_id;
};

// The outcome of an append that did not fail on I/O.
struct partition_append_result {
  // none, or the producer-state refusal (OUT_OF_ORDER_SEQUENCE_NUMBER,
  // INVALID_PRODUCER_EPOCH, INVALID_TXN_STATE, ...): nothing was written.
  protocol::error_code error = protocol::error_code::none;
  std::string error_message;
  // A retried batch: first/last offset are the original ones; nothing written.
  bool duplicate = false;
  append_result log;
  // Transactions ended by markers in this append (for the transaction index).
  std::vector<finished_txn> finished_txns;
};

struct leader_append_options {
  leader_epoch epoch{0};
  int64_t now_ms = 0;
  // client for Produce; coordinator for WriteTxnMarkers and internal topics.
  producer_origin origin = producer_origin::client;
  // The transaction version WriteTxnMarkers carries for a marker.
  int16_t transaction_version = 0;
  // Set when a transactional write that opens a transaction must be
  // verified: the guard it carries (see producer_state.h).
  std::optional<verification_guard> verification;
};

class partition_log {
 public:
  // Opens (creating the directory when missing) <dir>; the directory name is
  // the caller's business. A storage error names the file.
  static storage_error open(file_system& fs, const std::filesystem::path& dir, const partition_log_options& options,
                            std::unique_ptr<partition_log>* out, log_load_report* report = nullptr);
  partition_log(const partition_log&) = delete;
  partition_log& operator=(const partition_log&) = delete;
  ~partition_log();

  const std::filesystem::path& dir() const { return log_->dir(); }
  const storage::log& log() const { return *log_; }
  storage::log& mutable_log() { return *log_; }
  const leader_epoch_cache& epoch_cache() const { return *epochs_; }
  const producer_state& producers() const { return producers_; }
  const std::optional<protocol::uuid>& topic_id() const { return topic_id_; }
  // A write failed (the log's own, or of the epoch checkpoint or a snapshot):
  // no more writes; the log manager takes the dir offline. Any thread.
  bool offline() const { return offline_.load(std::memory_order_acquire) || log_->offline(); }

  // A produce: offsets from the log end, each batch stamped with `epoch`.
  // Producer state (idempotence window) is checked before the write and
  // updated after it; a duplicate returns the original offsets unwritten.
  std::error_code append_as_leader(std::span<uint8_t> batches, const leader_append_options& options,
                                   partition_append_result* out);
  // A follower's append of what it fetched: offsets and epochs kept.
  std::error_code append_as_follower(std::span<uint8_t> batches, int64_t now_ms, partition_append_result* out);

  // Leadership at `epoch` begins at the log end (ARCHITECTURE.md §4): the epoch cache
  // gets (epoch, log end) before the first write of the new leader.
  std::error_code become_leader(leader_epoch epoch);
  // The checkpoint write become_leader(epoch) would make, prepared to be
  // written off the strand first (see leader_epoch_cache); nothing when it
  // would write nothing. note_leader_epoch_written() after it was written.
  std::optional<leader_epoch_cache::prepared_write> prepare_become_leader(leader_epoch epoch) const;
  void note_leader_epoch_written(const leader_epoch_cache::prepared_write& w) { epochs_->note_written(w); }
  // A future log catching up with the current one (AlterReplicaLogDirs)
  // also takes the epochs the current one began without a batch yet (a
  // leader that has not written), at their start offsets.
  std::error_code adopt_epoch(leader_epoch epoch, offset start) { return assign_epoch(epoch, start); }
  // The high watermark moved (ends transactions below it for the LSO).
  void on_high_watermark_updated(offset high_watermark) { producers_.on_high_watermark_updated(high_watermark); }
  // KIP-890: nothing when the producer has a transaction open here at this
  // epoch (its writes need no verification), else its verification guard.
  // supports_epoch_bump: the writer is a transactions v2 client
  // (producer_state::start_verification).
  std::optional<verification_guard> maybe_start_verification(producer_id id, producer_epoch epoch,
                                                             bool supports_epoch_bump, int64_t now_ms) {
    if (producers_.has_ongoing_transaction(id, epoch)) return std::nullopt;
    return producers_.start_verification(id, epoch, supports_epoch_bump, now_ms);
  }
  // Drops producers idle for producer.id.expiration.ms; returns how many.
  size_t expire_producers(int64_t now_ms) { return producers_.expire(now_ms, producer_id_expiration_ms_); }

  // DeleteRecords: the log start moves to o (the caller checked the HW),
  // then on_log_start_offset_moved().
  std::error_code advance_log_start_offset(offset o, int64_t now_ms);
  // After anything raised the log start (retention, DeleteRecords): epoch
  // entries before it are folded into one starting at it, producer state
  // learns it, and snapshots at or below it are deleted.
  std::error_code on_log_start_offset_moved();

  // Everything at or above o goes: log, epoch cache entries, producer state.
  // At or past the log end nothing is cut but epochs starting at the log end
  // (led without a write) are dropped.
  std::error_code truncate_to(offset o, int64_t now_ms);
  // Empty, restarting at o (and log start o); epoch cache and snapshots cleared.
  std::error_code truncate_fully_and_start_at(offset o, int64_t now_ms);

  // What opening left unsynced made durable: a new partition's directory
  // (its first segment's entries, the log dir's entry for it) and an
  // unwritten partition.metadata; nothing when already done. Done before
  // the first append at the latest (and at close); the broker calls it off
  // the partition's strand right after creating the log, as Kafka flushes
  // partition.metadata in the background. Any thread.
  std::error_code make_durable();
  // A log found without partition.metadata (a crash before it was written)
  // takes the topic id from the metadata log; written as for a new
  // partition. Before the partition takes writes.
  void adopt_topic_id(const protocol::uuid& id) {
    std::lock_guard lock(durability_mutex_);
    if (topic_id_) return;
    topic_id_ = id;
    metadata_unwritten_ = true;
    durability_pending_.store(true, std::memory_order_release);
  }

  // Writes <log end>.snapshot (done on every roll and at close).
  std::error_code take_snapshot();
  // Snapshot, epoch checkpoint, flush, close. No writes afterwards.
  std::error_code close();

 private:
  partition_log(file_system& fs, int64_t producer_id_expiration_ms)
      : fs_(fs), producer_id_expiration_ms_(producer_id_expiration_ms) {}

  std::error_code append(std::span<uint8_t> batches, const append_options& options, producer_origin origin,
                         int16_t transaction_version, std::optional<verification_guard> verification,
                         partition_append_result* out);
  // Replays log batches from the producer state's map end to the log end.
  std::error_code replay_producer_state(int64_t now_ms);
  std::error_code reload_producer_state(int64_t now_ms);
  void on_recovered(const protocol::record_batch_view& batch);
  void replay_batch(const protocol::record_batch_view& batch);
  // Calls visit on every batch from the one holding `from` to the log end.
  std::error_code for_each_batch(offset from, const std::function<void(const protocol::record_batch_view&)>& visit);
  std::error_code rebuild_transaction_index(offset from, int64_t now_ms);
  std::error_code assign_epoch(leader_epoch epoch, offset start);
  std::error_code to_error(const storage_error& err);

  file_system& fs_;
  int64_t producer_id_expiration_ms_;
  std::unique_ptr<storage::log> log_;
  std::unique_ptr<leader_epoch_cache> epochs_;
  producer_state producers_;
  std::optional<protocol::uuid> topic_id_;
  // make_durable() has work left: partition.metadata to write, and/or the
  // directory this log created to sync with the log dir's entry for it
  // (both guarded by durability_mutex_).
  std::atomic<bool> durability_pending_{false};
  bool metadata_unwritten_ = false;
  bool new_directory_ = false;
  std::mutex durability_mutex_;
  // While loading: whether recovered batches continue the snapshot's state.
  bool feeding_producers_ = false;
  // While loading: the first offset recovery scanned (its segments' `.txnindex`
  // was emptied, to be rebuilt by rebuild_transaction_index).
  std::optional<offset> reindex_from_;
  std::atomic<bool> offline_{false};
};

// What the producer state reads from a batch (the marker of a control batch
// decoded from its record; none when it cannot be read).
producer_batch to_producer_batch(const protocol::record_batch_view& batch, offset first_offset,
                                 int16_t transaction_version = transaction_version_unknown);

}  // namespace hw::storage
