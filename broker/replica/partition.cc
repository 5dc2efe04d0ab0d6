#include "broker/replica/partition.h"

#include <algorithm>
#include <tuple>

#include <spdlog/spdlog.h>

namespace hw::broker {

using perr = protocol::error_code;

partition::partition(asio::any_io_executor executor, storage::topic_partition tp, protocol::uuid topic_id,
                     std::shared_ptr<storage::partition_log> log, node_id self, broker_lookup brokers)
    : executor_(executor),
      strand_(asio::make_strand(executor)),
      tp_(std::move(tp)),
      topic_id_(topic_id),
      log_(std::move(log)),
      self_(self),
      brokers_(std::move(brokers)),
      status_(self) {}

size_t partition::expire_producers(int64_t now_ms) {
  const size_t expired = log().expire_producers(now_ms);
  update_last_stable_offset();
  return expired;
}

void partition::mark_removed() {
  leader_state_.reset();
  status_.mark_removed();
}

std::error_code partition::become_leader(const partition_role& role, const leader_settings& settings,
                                         broker_epoch self_epoch, int64_t now_ms) {
  if (removed()) return {};
  const bool new_epoch = !leader_state_ || role.leader_epoch.value > leader_epoch();
  if (!leader_state_) leader_state_.emplace(self_, self_epoch, settings);
  leader_state_->set_settings(settings);
  const bool current = leader_state_->on_role(role, log_end_offset(), now_ms);
  status_.publish_min_isr(leader_state_->effective_min_isr());
  if (!current) return {};  // older than what this leader knows
  if (new_epoch) {
    if (auto ec = log().become_leader(role.leader_epoch)) return ec;
  }
  partition_role published = role;
  published.isr = leader_state_->isr();
  published.partition_epoch = leader_state_->version();
  status_.publish_role(published);
  maybe_advance_high_watermark(now_ms);
  status_.notify_waiters();
  return {};
}

std::error_code partition::become_follower(const partition_role& role) {
  if (removed()) return {};
  if (role.partition_epoch < status_.role_on_strand().partition_epoch && role.leader_epoch.value <= leader_epoch())
    return {};
  leader_state_.reset();
  status_.publish_role(role);
  // Produces waiting for acks learn that this replica no longer leads.
  status_.notify_waiters();
  return {};
}

void partition::set_high_watermark(storage::offset hw) {
  status_.publish_high_watermark(hw);
  log().on_high_watermark_updated(hw);
  update_last_stable_offset();
}

void partition::maybe_advance_high_watermark(int64_t now_ms) {
  // ARCHITECTURE.md §4: the smallest log end among the (maximal) ISR,
  // never backwards, and only while the ISR is at least min ISR.
  if (!leader_state_) return;
  const storage::offset current = high_watermark();
  if (auto next = leader_state_->next_high_watermark(log_end_offset(), current, now_ms, brokers_)) {
    set_high_watermark(*next);
  } else {
    update_last_stable_offset();
  }
}

void partition::update_last_stable_offset() {
  const storage::offset hw = high_watermark();
  const storage::producer_state& producers = log().producers();
  auto first_unstable = producers.first_unstable_offset();
  status_.publish_producers(first_unstable ? std::min(hw, *first_unstable) : hw,
                            static_cast<int64_t>(producers.producers().size()),
                            producers.oldest_transaction_last_write_ms());
}

protocol::error_code partition::check_divergence(storage::leader_epoch last_fetched_epoch,
                                                 storage::offset fetch_offset,
                                                 std::optional<diverging_epoch>* diverging) const {
  const storage::epoch_end_offset end = log().epoch_cache().end_offset_for(last_fetched_epoch, log_end_offset());
  if (end.end_offset == storage::undefined_epoch_offset || end.epoch == storage::undefined_epoch)
    return perr::offset_out_of_range;
  if (fetch_offset < log_start_offset()) return perr::offset_out_of_range;
  if (end.epoch < last_fetched_epoch || end.end_offset < fetch_offset) *diverging = diverging_epoch{end.epoch, end.end_offset};
  return perr::none;
}

follower_fetch_outcome partition::on_follower_fetch(node_id follower, storage::offset fetch_offset,
                                                    storage::offset follower_log_start, broker_epoch epoch,
                                                    int64_t now_ms) {
  follower_fetch_outcome out;
  if (removed() || !leader_state_) {
    out.error = removed() ? perr::unknown_topic_or_partition : perr::not_leader_or_follower;
    return out;
  }
  out = leader_state_->on_follower_fetch(follower, fetch_offset, follower_log_start, epoch, now_ms,
                                         log_end_offset(), high_watermark(), brokers_);
  if (out.error != perr::none) return out;
  if (out.expand) {
    std::string isr;
    for (node_id n : out.expand->isr) isr += (isr.empty() ? "" : ",") + std::to_string(n.value);
    spdlog::info("[Partition {} broker={}] Expanding ISR to {} (pending the controller)",
                 storage::partition_dir_name(tp_), self_.value, isr);
  }
  if (out.log_end_moved) {
    const storage::offset before = high_watermark();
    maybe_advance_high_watermark(now_ms);
    if (high_watermark() != before) status_.notify_waiters();
  }
  return out;
}

std::optional<isr_change> partition::maybe_shrink_isr(int64_t now_ms) {
  if (removed() || !leader_state_) return std::nullopt;
  auto change = leader_state_->maybe_shrink(now_ms, log_end_offset());
  if (change) {
    auto list = [](const std::vector<node_id>& v) {
      std::string out;
      for (node_id n : v) out += (out.empty() ? "" : ",") + std::to_string(n.value);
      return out;
    };
    std::string out_of_sync;
    for (node_id n : change->changed) out_of_sync += (out_of_sync.empty() ? "" : " ") + leader_state_->describe(n);
    spdlog::info("[Partition {} broker={}] Shrinking ISR from {} to {}. Leader: (highWatermark: {}, endOffset: {}). "
                 "Out of sync replicas: {}.",
                 storage::partition_dir_name(tp_), self_.value, list(leader_state_->isr()), list(change->isr),
                 high_watermark().value, log_end_offset().value, out_of_sync);
  }
  return change;
}

alter_outcome partition::on_alter_partition_answer(uint64_t change_id, const alter_partition_answer& answer,
                                                   int64_t now_ms) {
  if (removed() || !leader_state_) return alter_outcome::stale;
  const alter_outcome outcome = leader_state_->on_alter_answer(change_id, answer);
  if (outcome == alter_outcome::committed) {
    partition_role published = status_.role_on_strand();
    published.isr = leader_state_->isr();
    published.partition_epoch = leader_state_->version();
    status_.publish_role(published);
    std::string isr;
    for (node_id n : published.isr) isr += (isr.empty() ? "" : ",") + std::to_string(n.value);
    spdlog::info("[Partition {} broker={}] ISR updated to {}{} and version updated to {}",
                 storage::partition_dir_name(tp_), self_.value, isr,
                 leader_state_->under_min_isr() ? " (under-min-isr)" : "", published.partition_epoch.value);
    maybe_advance_high_watermark(now_ms);
    status_.notify_waiters();
  } else if (outcome != alter_outcome::stale && outcome != alter_outcome::published) {
    spdlog::info("[Partition {} broker={}] Failed to alter partition: {}", storage::partition_dir_name(tp_),
                 self_.value, protocol::error_name(answer.error));
  }
  return outcome;
}

std::pair<bool, protocol::error_code> partition::acks_done(storage::offset required) const {
  if (removed()) return {true, perr::unknown_topic_or_partition};
  if (!leader_state_) return {true, perr::not_leader_or_follower};
  return leader_state_->acks_done(required, high_watermark());
}

partition::follower_append partition::append_as_follower(storage::leader_epoch leader_epoch,
                                                         std::span<uint8_t> batches,
                                                         storage::offset leader_high_watermark,
                                                         storage::offset leader_log_start, int64_t now_ms) {
  follower_append out;
  if (removed() || leader_state_ || leader_epoch.value != this->leader_epoch()) return out;
  storage::partition_append_result result;
  if (auto ec = log().append_as_follower(batches, now_ms, &result)) {
    out.error = ec;
    out.log_end = log_end_offset();
    out.last_epoch = latest_epoch();
    return out;
  }
  out.applied = true;
  out.log_end = log_end_offset();
  out.last_epoch = latest_epoch();
  follow_leader_offsets(leader_high_watermark, leader_log_start, now_ms);
  status_.notify_waiters();
  return out;
}

void partition::follow_leader_offsets(storage::offset leader_high_watermark, storage::offset leader_log_start,
                                      int64_t now_ms) {
  if (leader_state_) return;
  // A follower's HW is the leader's, capped at its own log end.
  const storage::offset hw = std::min(leader_high_watermark, log_end_offset());
  if (hw.value >= 0 && hw != high_watermark()) set_high_watermark(hw);
  if (leader_log_start > log_start_offset() && leader_log_start <= log_end_offset()) {
    if (auto ec = log().advance_log_start_offset(leader_log_start, now_ms))
      spdlog::warn("[Partition {} broker={}] Cannot move the log start to the leader's {}: {}",
                   storage::partition_dir_name(tp_), self_.value, leader_log_start.value, ec.message());
  }
}

std::error_code partition::truncate(const truncation& t, int64_t now_ms) {
  // Nothing to cut still clears epochs that start at the log end (see
  // partition_log::truncate_to), so the next fetch does not diverge again.
  if (t.what == truncation::kind::none) return log().truncate_to(log_end_offset(), now_ms);
  const std::string name = storage::partition_dir_name(tp_);
  std::error_code ec;
  if (t.what == truncation::kind::to_offset) {
    spdlog::info("[Partition {} broker={}] Truncating partition {} to offset {}: {}", name, self_.value, name,
                 t.at.value, t.reason);
    ec = log().truncate_to(t.at, now_ms);
  } else {
    spdlog::info("[Partition {} broker={}] Truncating partition {} fully and starting at offset {}: {}", name,
                 self_.value, name, t.at.value, t.reason);
    ec = log().truncate_fully_and_start_at(t.at, now_ms);
  }
  // The HW cannot stay above the log end.
  if (!ec && high_watermark() > log_end_offset()) set_high_watermark(log_end_offset());
  update_last_stable_offset();
  return ec;
}

storage::epoch_end_offset partition::end_offset_for(storage::leader_epoch epoch) const {
  return log().epoch_cache().end_offset_for(epoch, log_end_offset());
}

std::optional<storage::leader_epoch> partition::latest_epoch() const { return log().epoch_cache().latest_epoch(); }

std::optional<storage::verification_guard> partition::start_transaction_verification(int64_t producer_id,
                                                                                     int16_t producer_epoch,
                                                                                     bool supports_epoch_bump,
                                                                                     int64_t now_ms) {
  return log().maybe_start_verification(storage::producer_id(producer_id), storage::producer_epoch(producer_epoch),
                                        supports_epoch_bump, now_ms);
}

partition_produce_result partition::append_records(std::span<uint8_t> batches, int16_t required_acks,
                                                   const produce_limits& limits, storage::producer_origin origin,
                                                   int64_t now_ms, int16_t transaction_version,
                                                   std::optional<storage::verification_guard> verification) {
  partition_produce_result out;
  if (removed()) {
    out.error = perr::unknown_topic_or_partition;
    return out;
  }
  if (!is_leader() || !leader_state_) {
    out.error = perr::not_leader_or_follower;
    return out;
  }
  if (log().offline()) {
    out.error = perr::kafka_storage_error;
    return out;
  }
  // Strict min ISR (KIP-966): acks=all is refused before the append when
  // the ISR is too small.
  if (required_acks == -1) {
    const auto& isr = leader_state_->isr();
    const int32_t min_isr = leader_state_->effective_min_isr();
    if (static_cast<int32_t>(isr.size()) < min_isr) {
      std::string members;
      for (node_id n : isr) members += (members.empty() ? "" : ", ") + std::to_string(n.value);
      out.error = perr::not_enough_replicas;
      out.error_message = "The size of the current ISR Set(" + members +
                          ") is insufficient to satisfy the min.isr requirement of " + std::to_string(min_isr) +
                          " for partition " + storage::partition_dir_name(tp_);
      return out;
    }
  }
  storage::leader_append_options options;
  options.epoch = storage::leader_epoch(leader_epoch());
  options.now_ms = now_ms;
  options.origin = origin;
  options.transaction_version = transaction_version;
  options.verification = verification;
  storage::partition_append_result result;
  if (auto ec = log().append_as_leader(batches, options, &result)) {
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
  if (!result.duplicate) maybe_advance_high_watermark(now_ms);
  out.required_offset = result.log.last_offset.value + 1;
  if (required_acks == -1) std::tie(out.acks_done, out.acks_error) = acks_done(storage::offset(out.required_offset));
  status_.notify_waiters();
  return out;
}

protocol::error_code partition::delete_records_before(storage::offset o, int64_t now_ms, int64_t* low_watermark) {
  if (removed()) return perr::unknown_topic_or_partition;
  if (!is_leader()) return perr::not_leader_or_follower;
  const storage::offset hw = high_watermark();
  if (o.value == -1) o = hw;  // DeleteRecords' "up to the high watermark"
  if (o < storage::offset(0) || o > hw) return perr::offset_out_of_range;
  if (o > log_start_offset()) {
    if (auto ec = log().advance_log_start_offset(o, now_ms)) return perr::kafka_storage_error;
  }
  *low_watermark = log_start_offset().value;
  status_.notify_waiters();
  return perr::none;
}

}  // namespace hw::broker
