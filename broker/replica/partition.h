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
// strand. What readers on other strands need (role, epochs, HW, LSO, log
// end) is published with atomic stores or under a leaf mutex for the
// replica lists.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "protocol/error_code.h"
#include "protocol/wire/uuid.h"
#include "storage/log_manager.h"
#include "storage/partition_log.h"

namespace hw::broker {

// A partition's place in the cluster, from its metadata registration.
struct partition_role {
  int32_t leader = -1;
  int32_t leader_epoch = -1;
  int32_t partition_epoch = -1;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
};

// What a produce to this partition came to.
struct partition_produce_result {
  protocol::error_code error = protocol::error_code::none;
  std::string error_message;
  int64_t base_offset = -1;
  int64_t log_append_time_ms = -1;
  int64_t log_start_offset = -1;
  // Per-batch errors (index in the request, message) for INVALID_RECORD.
  std::vector<std::pair<int32_t, std::string>> record_errors;
};

// Settings a produce reads, from the topic's effective configs.
struct produce_limits {
  int32_t max_message_bytes = 1048588;  // max.message.bytes
  int32_t min_insync_replicas = 1;      // min.insync.replicas
  // message.timestamp.type=LogAppendTime: the broker stamps batches, so
  // the producer's timestamps are not checked.
  bool log_append_time = false;
  int64_t timestamp_before_max_ms = INT64_MAX;  // message.timestamp.before.max.ms
  int64_t timestamp_after_max_ms = 3600000;     // message.timestamp.after.max.ms
};

class partition : public std::enable_shared_from_this<partition> {
 public:
  using strand_type = asio::strand<asio::any_io_executor>;

  partition(asio::any_io_executor executor, storage::topic_partition tp, protocol::uuid topic_id,
            std::shared_ptr<storage::partition_log> log, int32_t self);

  const storage::topic_partition& tp() const { return tp_; }
  const protocol::uuid& topic_id() const { return topic_id_; }
  strand_type& strand() { return strand_; }
  storage::partition_log& log() { return *log_; }

  // --- any thread -------------------------------------------------------------
  bool is_leader() const { return leader_.load(std::memory_order_acquire) == self_; }
  int32_t leader() const { return leader_.load(std::memory_order_acquire); }
  int32_t leader_epoch() const { return leader_epoch_.load(std::memory_order_acquire); }
  storage::offset high_watermark() const { return storage::offset(high_watermark_.load(std::memory_order_acquire)); }
  storage::offset last_stable_offset() const { return storage::offset(lso_.load(std::memory_order_acquire)); }
  storage::offset log_end_offset() const { return log_->log().log_end_offset(); }
  storage::offset log_start_offset() const { return log_->log().log_start_offset(); }
  partition_role role() const;
  // Dropped by the replica manager (topic deleted, or replica moved away):
  // it leads nothing and takes no writes; its log is closed.
  bool removed() const { return removed_.load(std::memory_order_acquire); }
  // KIP-320: the error for a request carrying current_leader_epoch (-1: no check).
  protocol::error_code check_leader_epoch(int32_t current_leader_epoch, bool require_leader) const;

  // Wake-ups for delayed fetches: called (from the strand) after appends
  // and HW moves. A waiter is called at most once and then forgotten.
  void add_waiter(std::shared_ptr<std::function<void()>> waiter);

  // --- partition strand ---------------------------------------------------------
  // The metadata log says who leads at which epoch. Becoming leader starts
  // the epoch at the log end (ARCHITECTURE.md §4).
  std::error_code apply_role(const partition_role& role);
  // A produce that passed request-level checks; batches are whole,
  // CRC-checked v2 batches in a writable buffer.
  partition_produce_result append_records(std::span<uint8_t> batches, int16_t required_acks,
                                          const produce_limits& limits, storage::producer_origin origin, int64_t now_ms);
  // DeleteRecords: the log start moves to o (<= HW).
  protocol::error_code delete_records_before(storage::offset o, int64_t now_ms, int64_t* low_watermark);
  // The replica manager drops the partition: requests still holding it are
  // refused from now on, and fetches waiting on it are woken.
  void mark_removed();
  // A follower's LEO as reported by its fetch (multi-broker HW).
  void update_follower_end_offset(int32_t replica, storage::offset leo);

 private:
  void maybe_advance_high_watermark();
  void update_last_stable_offset();
  void notify_waiters();

  asio::any_io_executor executor_;
  strand_type strand_;
  storage::topic_partition tp_;
  protocol::uuid topic_id_;
  std::shared_ptr<storage::partition_log> log_;
  int32_t self_;
  std::atomic<bool> removed_{false};

  std::atomic<int32_t> leader_{-1};
  std::atomic<int32_t> leader_epoch_{-1};
  std::atomic<int64_t> high_watermark_{0};
  std::atomic<int64_t> lso_{0};

  mutable std::mutex mutex_;  // leaf: guards role_ writes and off-strand reads, and waiters_
  partition_role role_;       // written only on the strand
  std::vector<std::shared_ptr<std::function<void()>>> waiters_;
  // Strand only: the followers' log end offsets.
  std::vector<std::pair<int32_t, int64_t>> follower_leo_;
};

}  // namespace hw::broker
