#pragma once
// The broker's fetch-session cache shared by every connection: the pure
// cache behind one lock (a leaf: each call is short and does no I/O).

#include <mutex>
#include <random>
#include <span>

#include "broker/fetch/fetch_session_cache.h"

namespace hw::broker::fetch {

class shared_fetch_sessions {
 public:
  explicit shared_fetch_sessions(fetch_session_cache::options options)
      : random_(std::random_device{}()), cache_(options, [this] { return static_cast<uint32_t>(random_()); }) {}

  fetch_context new_context(const fetch_request_view& request, const fetch_session_cache::topic_name_lookup& names,
                            int64_t now_ms) {
    std::lock_guard lock(mutex_);
    return cache_.new_context(request, names, now_ms);
  }
  fetch_response_plan update_and_generate_response(const fetch_context& ctx, std::span<const partition_result> results,
                                                   int64_t now_ms) {
    std::lock_guard lock(mutex_);
    return cache_.update_and_generate_response(ctx, results, now_ms);
  }
  // The answer to a throttled fetch: no partitions, the session unchanged.
  fetch_response_plan throttled_response(const fetch_context& ctx) {
    std::lock_guard lock(mutex_);
    return cache_.throttled_response(ctx);
  }
  size_t size() {
    std::lock_guard lock(mutex_);
    return cache_.size();
  }

 private:
  std::mutex mutex_;
  std::mt19937 random_;  // guarded by mutex_: the cache draws session ids under the lock
  fetch_session_cache cache_;
};

}  // namespace hw::broker::fetch
