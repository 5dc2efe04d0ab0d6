#pragma once
// The broker-wide bound on requests read but not yet handled
// (queued.max.requests). Shared by every connection; a lock-free counter
// because it is touched from every strand.

#include <atomic>
#include <cstdint>

namespace hw::broker {

class request_budget {
 public:
  explicit request_budget(int32_t max_requests) : max_(max_requests) {}

  bool try_acquire() {
    int32_t n = used_.load(std::memory_order_relaxed);
    while (n < max_)
      if (used_.compare_exchange_weak(n, n + 1, std::memory_order_acq_rel)) return true;
    return false;
  }
  void release() { used_.fetch_sub(1, std::memory_order_acq_rel); }
  int32_t in_use() const { return used_.load(std::memory_order_relaxed); }

 private:
  const int32_t max_;
  std::atomic<int32_t> used_{0};
};

}  // namespace hw::broker
