#include "broker/replica/follower_state.h"

#include <algorithm>

namespace hw::broker {

using protocol::error_code;

const char* to_string(follower_phase p) {
  switch (p) {
    case follower_phase::fetching:
      return "fetching";
    case follower_phase::delayed:
      return "delayed";
    case follower_phase::resetting:
      return "resetting";
    case follower_phase::awaiting_epoch:
      return "awaiting_epoch";
    case follower_phase::failed:
      return "failed";
  }
  return "?";
}

truncation truncation_for_divergence(const diverging_epoch& leader, storage::leader_epoch local_epoch,
                                     offset local_end_offset, offset log_end) {
  truncation t;
  t.what = truncation::kind::to_offset;
  const std::string leaders = "the leader's epoch " + std::to_string(leader.epoch.value) + " ends at offset " +
                              std::to_string(leader.end_offset.value);
  if (local_epoch == storage::undefined_epoch) {
    // Nothing local at or below the leader's epoch: the leader's end is all
    // there is to go by.
    t.at = std::min(leader.end_offset, log_end);
    t.reason = leaders + " and this replica has no epoch at or below it";
  } else if (local_epoch != leader.epoch) {
    // The leader's epoch is unknown here: cut to where the largest local
    // epoch below it ends; the next fetch carries that epoch and the leader
    // answers again if the histories still differ.
    t.at = std::min(local_end_offset, log_end);
    t.reason = leaders + "; this replica does not have that epoch, its epoch " +
               std::to_string(local_epoch.value) + " ends at offset " + std::to_string(local_end_offset.value);
  } else {
    t.at = std::min({leader.end_offset, local_end_offset, log_end});
    t.reason = leaders + " and here at offset " + std::to_string(local_end_offset.value);
  }
  if (t.at >= log_end) t.what = truncation::kind::none;
  return t;
}

reset_decision reset_after_out_of_range(offset leader_log_end, offset leader_log_start, offset log_end) {
  reset_decision d;
  if (leader_log_end < log_end) {
    // The leader has less than this replica (an unclean election): keep
    // only what it has.
    d.cut.what = truncation::kind::to_offset;
    d.cut.at = leader_log_end;
    d.cut.reason = "the leader's log ends at offset " + std::to_string(leader_log_end.value) +
                   ", below this replica's end " + std::to_string(log_end.value);
    d.fetch_offset = leader_log_end;
    return d;
  }
  if (leader_log_start > log_end) {
    // Everything here is older than the leader's log start.
    d.cut.what = truncation::kind::fully_and_start_at;
    d.cut.at = leader_log_start;
    d.cut.reason = "the leader's log starts at offset " + std::to_string(leader_log_start.value) +
                   ", above this replica's end " + std::to_string(log_end.value);
    d.fetch_offset = leader_log_start;
    return d;
  }
  d.fetch_offset = log_end;
  return d;
}

void follower_state::start(storage::leader_epoch leader_epoch, offset log_end,
                           std::optional<storage::leader_epoch> latest_epoch) {
  phase_ = follower_phase::fetching;
  retry_at_ms_ = 0;
  position_.fetch_offset = log_end;
  position_.last_fetched_epoch = latest_epoch;
  position_.current_leader_epoch = leader_epoch;
  lag_ = 0;
}

follower_phase follower_state::phase(int64_t now_ms) const {
  if (phase_ == follower_phase::delayed && now_ms >= retry_at_ms_) return follower_phase::fetching;
  return phase_;
}

bool follower_state::on_appended(offset requested, offset next, std::optional<storage::leader_epoch> last_epoch,
                                 offset leader_high_watermark) {
  // A backoff that ended counts as fetching: the request was sent after it.
  if (requested != position_.fetch_offset || (phase_ != follower_phase::fetching && phase_ != follower_phase::delayed))
    return false;
  phase_ = follower_phase::fetching;
  position_.fetch_offset = next;
  if (last_epoch) position_.last_fetched_epoch = last_epoch;
  lag_ = std::max<int64_t>(0, leader_high_watermark - next);
  return true;
}

void follower_state::on_empty(offset leader_high_watermark) {
  lag_ = std::max<int64_t>(0, leader_high_watermark - position_.fetch_offset);
}

void follower_state::on_truncated(offset log_end, std::optional<storage::leader_epoch> latest_epoch) {
  position_.fetch_offset = log_end;
  position_.last_fetched_epoch = latest_epoch;
  phase_ = follower_phase::fetching;
}

void follower_state::on_reset(offset fetch_offset, std::optional<storage::leader_epoch> latest_epoch,
                              offset leader_log_end) {
  position_.fetch_offset = fetch_offset;
  position_.last_fetched_epoch = latest_epoch;
  lag_ = std::max<int64_t>(0, leader_log_end - fetch_offset);
  phase_ = follower_phase::fetching;
}

void follower_state::delay(int64_t now_ms) {
  if (phase_ == follower_phase::failed || phase_ == follower_phase::awaiting_epoch) return;
  phase_ = follower_phase::delayed;
  retry_at_ms_ = now_ms + backoff_ms_;
}

void follower_state::on_error(error_code error, int64_t now_ms) {
  switch (error) {
    case error_code::none:
      return;
    case error_code::offset_out_of_range:
      phase_ = follower_phase::resetting;
      return;
    case error_code::fenced_leader_epoch:
      phase_ = follower_phase::awaiting_epoch;
      return;
    case error_code::kafka_storage_error:
      // The leader's disk, not ours: it moves leadership; retry meanwhile.
    default:
      // UNKNOWN_LEADER_EPOCH (the leader has not caught up with the metadata
      // yet), NOT_LEADER_OR_FOLLOWER, unknown topics while being created or
      // deleted, and the rest.
      delay(now_ms);
      return;
  }
}

}  // namespace hw::broker
