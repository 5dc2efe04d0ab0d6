#pragma once
// One partition hosted by this broker: its log, its role (leader or
// follower) at a leader epoch as the metadata log says, the high watermark
// and last stable offset, and the fetches waiting for it to grow.
//
// Ownership and threads: owned by the replica manager (shared_ptr, so a
// request that found it keeps it alive through a deletion; the partition
// shares its log with the log manager for the same reason, so a fetch that
// waited across a deletion can still read it, and is told it was removed). Every mutation
// — appends, role changes, HW moves, truncation — runs on the partition's
// strand. What readers on other strands need (role, epochs, HW, LSO, the
// produce limits, the wake-ups) is in its partition_status, published there
// by the strand.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "broker/replica/follower_state.h"
#include "broker/replica/leader_state.h"
#include "broker/replica/partition_status.h"
#include "broker/replica/partition_waiter.h"
#include "broker/replica/replica_types.h"
#include "protocol/error_code.h"
#include "protocol/wire/uuid.h"
#include "storage/log_manager.h"
#include "storage/partition_log.h"

namespace hw::broker {


// What a produce to this partition came to.
struct partition_produce_result {
  protocol::error_code error = protocol::error_code::none;
  std::string error_message;
  int64_t base_offset = -1;
  int64_t log_append_time_ms = -1;
  int64_t log_start_offset = -1;
  // Per-batch errors (index in the request, message) for INVALID_RECORD.
  std::vector<std::pair<int32_t, std::string>> record_errors;
  // acks=all: the HW must pass this offset (the last appended + 1); done
  // already when the HW did so with the append (one replica in the ISR).
  int64_t required_offset = -1;
  bool acks_done = false;
  protocol::error_code acks_error = protocol::error_code::none;
};

class partition : public std::enable_shared_from_this<partition> {
 public:
  using strand_type = asio::strand<asio::any_io_executor>;

  partition(asio::any_io_executor executor, storage::topic_partition tp, protocol::uuid topic_id,
            std::shared_ptr<storage::partition_log> log, node_id self, broker_lookup brokers = {});

  const storage::topic_partition& tp() const { return tp_; }
  const protocol::uuid& topic_id() const { return topic_id_; }
  strand_type& strand() { return strand_; }
  // The log: on the strand (which alone replaces it), or briefly from any
  // thread; a reader that keeps it across a wait holds log_ptr().
  storage::partition_log& log() { return *log_.load(std::memory_order_acquire); }
  const storage::partition_log& log() const { return *log_.load(std::memory_order_acquire); }
  std::shared_ptr<storage::partition_log> log_ptr() const { return log_.load(std::memory_order_acquire); }
  // Strand only: a replica moved between log dirs continues in its promoted
  // future log (AlterReplicaLogDirs); readers holding the old one keep it.
  void replace_log(std::shared_ptr<storage::partition_log> log) { log_.store(std::move(log), std::memory_order_release); }

  // --- any thread -------------------------------------------------------------
  // What other strands read and may register (partition_status.h).
  const partition_status& status() const { return status_; }
  partition_status& status() { return status_; }
  // The reads every request makes, for short.
  bool is_leader() const { return status_.is_leader(); }
  int32_t leader() const { return status_.leader(); }
  int32_t leader_epoch() const { return status_.leader_epoch(); }
  storage::offset high_watermark() const { return status_.high_watermark(); }
  storage::offset last_stable_offset() const { return status_.last_stable_offset(); }
  storage::offset log_end_offset() const { return log_ptr()->log().log_end_offset(); }
  storage::offset log_start_offset() const { return log_ptr()->log().log_start_offset(); }
  // Dropped by the replica manager (topic deleted, or replica moved away):
  // it leads nothing and takes no writes; its log is closed.
  bool removed() const { return status_.removed(); }
  partition_health health_now() const { return status_.health(log_ptr()->offline()); }
  // Drops producers idle for producer.id.expiration.ms; returns how many.
  size_t expire_producers(int64_t now_ms);

  // --- partition strand: roles -------------------------------------------------
  // The metadata log gives this replica the lead at role.leader_epoch. A new
  // epoch starts at the log end (the epoch cache gets it before any write,
  // ARCHITECTURE.md §4) and resets what is known of the followers. Skipped
  // (nothing changes) when the role is older than what this leader knows:
  // an AlterPartition answer may arrive before the record that made it.
  std::error_code become_leader(const partition_role& role, const leader_settings& settings,
                                broker_epoch self_epoch, int64_t now_ms);
  // The metadata log names another leader: no leader state, no writes; the
  // HW stays (a follower's moves with the leader's answers).
  std::error_code become_follower(const partition_role& role);

  // --- partition strand: as the leader --------------------------------------------
  // A produce that passed request-level checks; batches are whole,
  // CRC-checked v2 batches in a writable buffer.
  // transaction_version: what WriteTxnMarkers says of a marker's
  // transaction (0 for anything else). verification: set when
  // transactional writes are verified (KIP-890), to the guard
  // start_transaction_verification() gave (0: none); a write that would
  // open a transaction is refused with INVALID_TXN_STATE unless the guard
  // is still the producer's.
  partition_produce_result append_records(std::span<uint8_t> batches, int16_t required_acks,
                                          const produce_limits& limits, storage::producer_origin origin, int64_t now_ms,
                                          int16_t transaction_version = 0,
                                          std::optional<storage::verification_guard> verification = std::nullopt);
  // KIP-890, before the transaction coordinator is asked: nothing when the
  // producer has a transaction open in this log at this epoch (its writes
  // need no verification), else the guard its write must carry. A marker,
  // or the producer's first transactional write, ends the guard (but a
  // transactions v2 marker at the guard's epoch: supports_epoch_bump is
  // whether the writer is a v2 client, storage/producer_state.h).
  std::optional<storage::verification_guard> start_transaction_verification(int64_t producer_id,
                                                                          int16_t producer_epoch,
                                                                          bool supports_epoch_bump, int64_t now_ms);
  // DeleteRecords: the log start moves to o (<= HW).
  protocol::error_code delete_records_before(storage::offset o, int64_t now_ms, int64_t* low_watermark);
  // KIP-320/KIP-595 for a fetch carrying the epoch of the last batch it
  // read: OFFSET_OUT_OF_RANGE when the epoch's end is unknown here or the
  // offset is below the log start; a DivergingEpoch when the fetcher's
  // history parts from this log's before fetch_offset.
  protocol::error_code check_divergence(storage::leader_epoch last_fetched_epoch, storage::offset fetch_offset,
                                        std::optional<diverging_epoch>* diverging) const;
  // A follower's fetch at fetch_offset (it passed the epoch checks):
  // its progress, the HW, and an ISR expansion to send if it caught up.
  follower_fetch_outcome on_follower_fetch(node_id follower, storage::offset fetch_offset,
                                           storage::offset follower_log_start, broker_epoch epoch, int64_t now_ms);
  // Followers out of sync for replica.lag.time.max.ms, as a shrink to send.
  std::optional<isr_change> maybe_shrink_isr(int64_t now_ms);
  // The controller's answer to a change this leader sent.
  alter_outcome on_alter_partition_answer(uint64_t change_id, const alter_partition_answer& answer, int64_t now_ms);
  // Whether an acks=all produce ending at `required` is done, and its error
  // (NOT_LEADER_OR_FOLLOWER once this replica no longer leads).
  std::pair<bool, protocol::error_code> acks_done(storage::offset required) const;
  // Strand only: whether n is one of the partition's replicas (no copy of the role).
  bool is_replica(node_id n) const { return status_.role_on_strand().is_replica(n); }
  // Strand only: the leader's bookkeeping, or null while following.
  const leader_state* leadership() const { return leader_state_ ? &*leader_state_ : nullptr; }

  // --- partition strand: as a follower ---------------------------------------------
  // What a fetch from the leader brought, appended as it is (offsets,
  // epochs, producer ids kept). Refused (false) when this replica is no
  // longer a follower at `leader_epoch` (the fetcher's answer came late).
  struct follower_append {
    bool applied = false;
    std::error_code error;  // storage error: the log is offline
    storage::offset log_end{-1};
    std::optional<storage::leader_epoch> last_epoch;
  };
  follower_append append_as_follower(storage::leader_epoch leader_epoch, std::span<uint8_t> batches,
                                     storage::offset leader_high_watermark, storage::offset leader_log_start,
                                     int64_t now_ms);
  // The leader's HW and log start from an answer without records.
  void follow_leader_offsets(storage::offset leader_high_watermark, storage::offset leader_log_start, int64_t now_ms);
  // Cuts the log as a DivergingEpoch or OFFSET_OUT_OF_RANGE decided.
  std::error_code truncate(const truncation& t, int64_t now_ms);
  // This log's end for a leader's epoch (the largest local epoch <= it and
  // where it ends; undefined epoch when there is none).
  storage::epoch_end_offset end_offset_for(storage::leader_epoch epoch) const;
  std::optional<storage::leader_epoch> latest_epoch() const;

  // --- partition strand ------------------------------------------------------------
  // The replica manager drops the partition: requests still holding it are
  // refused from now on, and fetches waiting on it are woken.
  void mark_removed();

 private:
  void maybe_advance_high_watermark(int64_t now_ms);
  void set_high_watermark(storage::offset hw);
  void update_last_stable_offset();

  asio::any_io_executor executor_;
  strand_type strand_;
  storage::topic_partition tp_;
  protocol::uuid topic_id_;
  std::atomic<std::shared_ptr<storage::partition_log>> log_;
  node_id self_;
  // The registered brokers as the current metadata image has them (for ISR
  // eligibility); safe from any thread.
  broker_lookup brokers_;
  partition_status status_;
  // Strand only: present while this replica leads.
  std::optional<leader_state> leader_state_;
};

}  // namespace hw::broker
