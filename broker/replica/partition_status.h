#pragma once
// What other strands see of a partition: its strand publishes the role
// (leader, epochs, replicas, ISR), the high watermark and last stable
// offset, the producer gauges and the leader's effective min ISR, and marks
// the partition removed; request handlers, the fetchers, the coordinators
// and the metrics read them from any thread. It also holds the topic's
// produce limits as the metadata publisher last pushed them, and the
// wake-ups of delayed fetches and acks=all produces waiting for a change.
//
// Ownership and threads: a member of its partition. Reads from any thread
// (atomics; the role, limits and wake list under a leaf mutex); the publish_*
// calls, mark_removed and notify_waiters from the partition's strand only.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "broker/replica/partition_waiter.h"
#include "broker/replica/replica_types.h"
#include "protocol/error_code.h"
#include "storage/types.h"

namespace hw::broker {

// Settings a produce reads, from the topic's effective configs (the layered
// configs: topic override, dynamic per-broker and cluster-wide defaults,
// static config), pushed by the metadata publisher when any layer changes.
struct produce_limits {
  int32_t max_message_bytes = 1048588;  // max.message.bytes
  // message.timestamp.type=LogAppendTime: the broker stamps batches, so
  // the producer's timestamps are not checked.
  bool log_append_time = false;
  int64_t timestamp_before_max_ms = INT64_MAX;  // message.timestamp.before.max.ms
  int64_t timestamp_after_max_ms = 3600000;     // message.timestamp.after.max.ms
  bool compacted = false;                       // cleanup.policy has compact: every record needs a key
};

// What the metrics count of one partition.
struct partition_health {
  bool leader = false;
  bool under_replicated = false;  // leads with an ISR smaller than the replica set
  bool under_min_isr = false;     // leads with an ISR below the effective min.insync.replicas
  bool offline = false;           // its log directory failed
  int64_t producer_ids = 0;       // producers its producer state holds
  // Leads: high watermark minus last stable offset (what read_committed
  // consumers wait for); 0 otherwise.
  int64_t lso_lag = 0;
  // Leads with an open transaction: the last write time of the producer
  // of the oldest one (Kafka's hasLateTransaction reads it); -1 otherwise.
  int64_t oldest_transaction_last_write_ms = -1;
};

class partition_status {
 public:
  explicit partition_status(node_id self) : self_(self) {}

  // --- any thread -------------------------------------------------------------
  bool is_leader() const { return leader() == self_.value; }
  int32_t leader() const { return leader_id_.load(std::memory_order_acquire); }
  int32_t leader_epoch() const { return leader_epoch_.load(std::memory_order_acquire); }
  storage::offset high_watermark() const { return storage::offset(high_watermark_.load(std::memory_order_acquire)); }
  storage::offset last_stable_offset() const { return storage::offset(lso_.load(std::memory_order_acquire)); }
  bool removed() const { return removed_.load(std::memory_order_acquire); }
  partition_role role() const;
  partition_health health(bool offline) const;
  // KIP-320: the error for a request carrying current_leader_epoch (-1: no check).
  protocol::error_code check_leader_epoch(int32_t current_leader_epoch, bool require_leader) const;
  // The topic's produce settings as last pushed (a copy).
  produce_limits limits() const;
  void set_limits(const produce_limits& limits);
  // Wake-ups for delayed fetches and acks=all produces, called (from the
  // strand) after appends, HW moves and role changes. A waiter is called at
  // most once and then forgotten. Held weakly: the caller keeps it alive
  // while it wants the wake-up, and one it dropped (a fetch answered
  // because another partition moved) is pruned, so an idle partition does
  // not collect the wake-ups of every fetch that read it.
  void add_waiter(const std::shared_ptr<std::function<void()>>& waiter);

  // --- the partition's strand ----------------------------------------------------
  // The role as published, read without the lock (only the strand writes it).
  const partition_role& role_on_strand() const { return role_; }
  void publish_role(const partition_role& role);
  void publish_high_watermark(storage::offset hw) { high_watermark_.store(hw.value, std::memory_order_release); }
  // The last stable offset and the producer gauges, after the producer
  // state or the high watermark changed.
  void publish_producers(storage::offset lso, int64_t producer_ids, int64_t oldest_transaction_last_write_ms);
  void publish_min_isr(int32_t min_isr) { min_isr_.store(min_isr, std::memory_order_relaxed); }
  // Leads nothing from now on; waiters are woken.
  void mark_removed();
  void notify_waiters();

 private:
  node_id self_;
  std::atomic<bool> removed_{false};
  std::atomic<int32_t> leader_id_{-1};
  std::atomic<int32_t> leader_epoch_{-1};
  std::atomic<int64_t> high_watermark_{0};
  std::atomic<int64_t> lso_{0};
  std::atomic<int64_t> producer_ids_{0};
  std::atomic<int64_t> oldest_txn_last_write_ms_{-1};
  std::atomic<int32_t> min_isr_{1};  // the leader's effective min.insync.replicas

  mutable std::mutex mutex_;  // leaf: guards role_ writes and off-strand reads, waiters_ and limits_
  partition_role role_;       // written only on the strand
  produce_limits limits_;
  wake_list waiters_;
};

}  // namespace hw::broker
