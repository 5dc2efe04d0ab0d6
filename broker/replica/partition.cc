#include "broker/replica/partition.h"

#include <algorithm>

namespace hw::broker {

using perr = protocol::error_code;

partition::partition(asio::any_io_executor executor, storage::topic_partition tp, protocol::uuid topic_id,
                     std::shared_ptr<storage::partition_log> log, int32_t self)
    : executor_(executor),
      strand_(asio::make_strand(executor)),
      tp_(std::move(tp)),
      topic_id_(topic_id),
      log_(std::move(log)),
      self_(self) {}

partition_role partition::role() const {
  std::lock_guard lock(mutex_);
  return role_;
}

protocol::error_code partition::check_leader_epoch(int32_t current_leader_epoch, bool require_leader) const {
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

void partition::add_waiter(std::shared_ptr<std::function<void()>> waiter) {
  std::lock_guard lock(mutex_);
  waiters_.push_back(std::move(waiter));
}

void partition::notify_waiters() {
  std::vector<std::shared_ptr<std::function<void()>>> woken;
  {
    std::lock_guard lock(mutex_);
    woken.swap(waiters_);
  }
  for (auto& w : woken) (*w)();
}

void partition::mark_removed() {
  removed_.store(true, std::memory_order_release);
  leader_.store(-1, std::memory_order_release);
  notify_waiters();
}

std::error_code partition::apply_role(const partition_role& role) {
  if (removed()) return {};
  const bool was_leader = is_leader();
  const int32_t old_epoch = leader_epoch();
  {
    std::lock_guard lock(mutex_);
    role_ = role;
  }
  if (role.leader == self_ && (!was_leader || role.leader_epoch != old_epoch)) {
    if (auto ec = log_->become_leader(storage::leader_epoch(role.leader_epoch))) return ec;
    follower_leo_.clear();
  }
  leader_epoch_.store(role.leader_epoch, std::memory_order_release);
  leader_.store(role.leader, std::memory_order_release);
  if (role.leader == self_) maybe_advance_high_watermark();
  notify_waiters();
  return {};
}

void partition::maybe_advance_high_watermark() {
  // HW = the smallest log end among the ISR as this leader knows it; it
  // never moves backwards on a leader.
  int64_t candidate = log_end_offset().value;
  for (int32_t replica : role_.isr) {  // strand: read unlocked, as in append_records
    if (replica == self_) continue;
    auto it = std::find_if(follower_leo_.begin(), follower_leo_.end(), [&](auto& p) { return p.first == replica; });
    candidate = std::min(candidate, it == follower_leo_.end() ? int64_t{0} : it->second);
  }
  if (candidate > high_watermark_.load(std::memory_order_relaxed)) {
    high_watermark_.store(candidate, std::memory_order_release);
    log_->on_high_watermark_updated(storage::offset(candidate));
  }
  update_last_stable_offset();
}

void partition::update_last_stable_offset() {
  const int64_t hw = high_watermark_.load(std::memory_order_relaxed);
  auto first_unstable = log_->producers().first_unstable_offset();
  lso_.store(first_unstable ? std::min(hw, first_unstable->value) : hw, std::memory_order_release);
}

void partition::update_follower_end_offset(int32_t replica, storage::offset leo) {
  auto it = std::find_if(follower_leo_.begin(), follower_leo_.end(), [&](auto& p) { return p.first == replica; });
  if (it == follower_leo_.end()) follower_leo_.emplace_back(replica, leo.value);
  else it->second = leo.value;
  maybe_advance_high_watermark();
  notify_waiters();
}

partition_produce_result partition::append_records(std::span<uint8_t> batches, int16_t required_acks,
                                                   const produce_limits& limits, storage::producer_origin origin,
                                                   int64_t now_ms) {
  partition_produce_result out;
  if (removed()) {
    out.error = perr::unknown_topic_or_partition;
    return out;
  }
  if (!is_leader()) {
    out.error = perr::not_leader_or_follower;
    return out;
  }
  if (log_->offline()) {
    out.error = perr::kafka_storage_error;
    return out;
  }
  // Strict min ISR (KIP-966): acks=all is refused before the append when
  // the ISR is too small.
  if (required_acks == -1) {
    // role_ is written only on this strand, so the strand reads it unlocked.
    const auto isr_size = static_cast<int32_t>(role_.isr.size());
    if (isr_size < limits.min_insync_replicas) {
      out.error = perr::not_enough_replicas;
      out.error_message = "The size of the current ISR " + std::to_string(isr_size) +
                          " is insufficient to satisfy the min.isr requirement of " +
                          std::to_string(limits.min_insync_replicas) + " for partition " +
                          storage::partition_dir_name(tp_);
      return out;
    }
  }
  storage::leader_append_options options;
  options.epoch = storage::leader_epoch(leader_epoch());
  options.now_ms = now_ms;
  options.origin = origin;
  storage::partition_append_result result;
  if (auto ec = log_->append_as_leader(batches, options, &result)) {
    out.error = perr::kafka_storage_error;
    out.error_message = ec.message();
    return out;
  }
  if (result.error != perr::none) {
    out.error = result.error;
    out.error_message = result.error_message;
    return out;
  }
  out.base_offset = result.log.first_offset.value;
  out.log_append_time_ms = result.log.log_append_time_ms;
  out.log_start_offset = log_start_offset().value;
  if (!result.duplicate) maybe_advance_high_watermark();
  notify_waiters();
  return out;
}

protocol::error_code partition::delete_records_before(storage::offset o, int64_t now_ms, int64_t* low_watermark) {
  if (removed()) return perr::unknown_topic_or_partition;
  if (!is_leader()) return perr::not_leader_or_follower;
  const storage::offset hw = high_watermark();
  if (o.value == -1) o = hw;  // DeleteRecords' "up to the high watermark"
  if (o < storage::offset(0) || o > hw) return perr::offset_out_of_range;
  if (o > log_start_offset()) {
    if (auto ec = log_->advance_log_start_offset(o, now_ms)) return perr::kafka_storage_error;
  }
  *low_watermark = log_start_offset().value;
  notify_waiters();
  return perr::none;
}

}  // namespace hw::broker
