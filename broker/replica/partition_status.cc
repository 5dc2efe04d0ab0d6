// partition_status: a partition's state as other strands read it.
#include "broker/replica/partition_status.h"

#include <algorithm>
#include <vector>

namespace hw::broker {

using perr = protocol::error_code;

partition_role partition_status::role() const {
  std::lock_guard lock(mutex_);
  return role_;
}

partition_health partition_status::health(bool offline) const {
  partition_health h;
  h.offline = offline;
  std::lock_guard lock(mutex_);
  h.leader = role_.leader == self_ && !removed();
  h.producer_ids = producer_ids_.load(std::memory_order_relaxed);
  if (h.leader) {
    h.under_replicated = role_.isr.size() < role_.replicas.size();
    h.under_min_isr = static_cast<int32_t>(role_.isr.size()) < min_isr_.load(std::memory_order_relaxed);
    h.lso_lag = std::max<int64_t>(
        high_watermark_.load(std::memory_order_relaxed) - lso_.load(std::memory_order_relaxed), 0);
    h.oldest_transaction_last_write_ms = oldest_txn_last_write_ms_.load(std::memory_order_relaxed);
  }
  return h;
}

protocol::error_code partition_status::check_leader_epoch(int32_t current_leader_epoch, bool require_leader) const {
  // Kafka's order (Partition.localLogWithEpochOrThrow): the epoch first,
  // then whether this replica leads.
  const int32_t epoch = leader_epoch();
  if (current_leader_epoch >= 0) {
    if (current_leader_epoch < epoch) return perr::fenced_leader_epoch;
    if (current_leader_epoch > epoch) return perr::unknown_leader_epoch;
  }
  if (require_leader && !is_leader()) return perr::not_leader_or_follower;
  return perr::none;
}

produce_limits partition_status::limits() const {
  std::lock_guard lock(mutex_);
  return limits_;
}

void partition_status::set_limits(const produce_limits& limits) {
  std::lock_guard lock(mutex_);
  limits_ = limits;
}

void partition_status::add_waiter(const std::shared_ptr<std::function<void()>>& waiter) {
  std::lock_guard lock(mutex_);
  waiters_.add(waiter);
}

void partition_status::notify_waiters() {
  std::vector<std::shared_ptr<std::function<void()>>> woken;
  {
    std::lock_guard lock(mutex_);
    woken = waiters_.take();
  }
  for (auto& w : woken) (*w)();
}

void partition_status::publish_role(const partition_role& role) {
  {
    std::lock_guard lock(mutex_);
    role_ = role;
  }
  leader_epoch_.store(role.leader_epoch.value, std::memory_order_release);
  leader_id_.store(role.leader.value, std::memory_order_release);
}

void partition_status::publish_producers(storage::offset lso, int64_t producer_ids,
                                         int64_t oldest_transaction_last_write_ms) {
  lso_.store(lso.value, std::memory_order_release);
  producer_ids_.store(producer_ids, std::memory_order_relaxed);
  oldest_txn_last_write_ms_.store(oldest_transaction_last_write_ms, std::memory_order_relaxed);
}

void partition_status::mark_removed() {
  removed_.store(true, std::memory_order_release);
  leader_id_.store(-1, std::memory_order_release);
  notify_waiters();
}

}  // namespace hw::broker
