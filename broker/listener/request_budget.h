#pragma once
// The broker-wide bound on requests read but not yet handled
// (queued.max.requests), shared by every connection. A connection that finds
// the budget spent leaves a wake-up and waits; every release wakes all
// waiters, which then race for the freed slots (those that lose wait again),
// so a waiter that has meanwhile closed cannot swallow the only wake-up.
// The mutex guards a counter and a short list touched from every strand.

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace hw::broker {

class request_budget {
 public:
  explicit request_budget(int32_t max_requests) : max_(max_requests) {}

  // Takes a slot, or (false) keeps wake to be called once, from the thread
  // of a later release(), when slots may be free again.
  bool acquire_or_wait(std::function<void()> wake) {
    std::lock_guard lock(mu_);
    if (used_ < max_) {
      ++used_;
      return true;
    }
    waiters_.push_back(std::move(wake));
    return false;
  }

  bool try_acquire() {
    std::lock_guard lock(mu_);
    if (used_ >= max_) return false;
    ++used_;
    return true;
  }

  void release() {
    std::vector<std::function<void()>> wake;
    {
      std::lock_guard lock(mu_);
      --used_;
      wake.swap(waiters_);
    }
    for (auto& w : wake) w();
  }

  int32_t in_use() const {
    std::lock_guard lock(mu_);
    return used_;
  }
  size_t waiting() const {
    std::lock_guard lock(mu_);
    return waiters_.size();
  }

 private:
  const int32_t max_;
  mutable std::mutex mu_;
  int32_t used_ = 0;
  std::vector<std::function<void()>> waiters_;
};

}  // namespace hw::broker
