#include "broker/metadata/stall_guard.h"

#include <chrono>

#include <spdlog/spdlog.h>

namespace hw::broker {

stall_guard::stall_guard(int64_t stall_ms, int64_t max_doubt_ms, std::function<int64_t()> applied_end)
    : stall_ms_(stall_ms), max_doubt_ms_(max_doubt_ms), applied_end_(std::move(applied_end)) {}

int64_t stall_guard::steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void stall_guard::tick(int64_t now_ms) {
  const int64_t last = last_tick_ms_.exchange(now_ms, std::memory_order_acq_rel);
  const bool stalled = last != 0 && now_ms - last >= stall_ms_;
  if (!stalled && doubt_until_ms_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard lock(mutex_);
  if (stalled) note_stall(last, now_ms);
  if (!lift_if_caught_up()) expire(now_ms);
}

void stall_guard::answered(int64_t sent_ms, int64_t high_watermark) {
  if (doubt_until_ms_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard lock(mutex_);
  if (sent_ms < stalled_at_ms_) return;  // it may describe the quorum from before the stall
  if (high_watermark > heard_high_watermark_) heard_high_watermark_ = high_watermark;
  lift_if_caught_up();
}

bool stall_guard::in_doubt(int64_t now_ms) {
  const int64_t last = last_tick_ms_.load(std::memory_order_acquire);
  if (last != 0 && now_ms - last >= stall_ms_) {
    std::lock_guard lock(mutex_);
    note_stall(last, now_ms);
  }
  const int64_t until = doubt_until_ms_.load(std::memory_order_acquire);
  return until != 0 && now_ms < until;
}

void stall_guard::note_stall(int64_t last_tick_ms, int64_t now_ms) {
  if (last_tick_ms == noted_tick_ms_) return;  // seen already (by the tick or a request)
  noted_tick_ms_ = last_tick_ms;
  stalled_at_ms_ = now_ms;
  heard_high_watermark_ = -1;
  doubt_until_ms_.store(now_ms + max_doubt_ms_, std::memory_order_release);
  spdlog::warn(
      "This broker stood still for {} ms (paused, or its machine stalled): until its metadata has caught up with "
      "the quorum (at most {} ms), clients needing a partition leader here are answered NOT_LEADER_OR_FOLLOWER",
      now_ms - last_tick_ms, max_doubt_ms_);
}

bool stall_guard::lift_if_caught_up() {
  if (doubt_until_ms_.load(std::memory_order_acquire) == 0) return true;
  if (heard_high_watermark_ < 0 || applied_end_() < heard_high_watermark_) return false;
  doubt_until_ms_.store(0, std::memory_order_release);
  spdlog::info("The metadata has caught up with the quorum (offset {}) since the stall: leading again",
               heard_high_watermark_);
  return true;
}

void stall_guard::expire(int64_t now_ms) {
  const int64_t until = doubt_until_ms_.load(std::memory_order_acquire);
  if (until == 0 || now_ms < until) return;
  doubt_until_ms_.store(0, std::memory_order_release);
  spdlog::warn("The metadata has not caught up with the quorum within {} ms of the stall: leading again with "
               "what it holds",
               max_doubt_ms_);
}

}  // namespace hw::broker
