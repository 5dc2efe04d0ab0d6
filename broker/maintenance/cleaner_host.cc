#include "broker/maintenance/cleaner_host.h"

#include <algorithm>
#include <optional>

#include <spdlog/spdlog.h>

namespace hw::broker {
namespace {

// Runs f on the strand and blocks the calling (non-io) thread for its result.
template <typename F>
auto wait_on(partition::strand_type& strand, F f) -> decltype(f()) {
  using R = decltype(f());
  return asio::co_spawn(strand, [f = std::move(f)]() mutable -> asio::awaitable<R> { co_return f(); },
                        asio::use_future)
      .get();
}

}  // namespace

std::vector<storage::log_cleaner_host::candidate> cleaner_host::compacted_logs() {
  held_.clear();
  std::vector<candidate> out;
  for (const auto& p : replicas_.all()) {
    if (replicas_.logs().is_offline(p->tp())) continue;
    {
      // Claimed before its log is touched, so a remover either sees the
      // claim and waits, or is seen here and the log is skipped.
      std::lock_guard lock(mutex_);
      if (removing_.contains(p->tp())) continue;
      in_pass_.insert(p->tp());
    }
    auto c = wait_on(p->strand(), [this, &p]() -> std::optional<candidate> {
      if (replicas_.get(p->tp()) != p) return std::nullopt;  // deleted meanwhile
      const storage::log& l = p->log().log();
      if (!l.config().cleanup.compact || p->log().offline()) return std::nullopt;
      return candidate{p->tp(), &l, std::min(p->last_stable_offset(), p->high_watermark()), l.config()};
    });
    if (!c) continue;
    out.push_back(std::move(*c));
    held_.push_back(p);
  }
  return out;
}

void cleaner_host::release() {
  held_.clear();
  begun_ = false;
  {
    std::lock_guard lock(mutex_);
    in_pass_.clear();
  }
  pass_done_.notify_all();
}

void cleaner_host::begin_removal(const storage::topic_partition& tp) {
  std::unique_lock lock(mutex_);
  removing_.insert(tp);
  pass_done_.wait(lock, [&] { return !in_pass_.contains(tp); });
}

void cleaner_host::end_removal(const storage::topic_partition& tp) {
  std::lock_guard lock(mutex_);
  removing_.erase(tp);
}

std::map<storage::topic_partition, storage::offset> cleaner_host::cleaner_checkpoints() {
  return replicas_.logs().cleaner_checkpoints();
}

std::error_code cleaner_host::update_cleaner_checkpoint(const storage::topic_partition& tp,
                                                        storage::offset first_dirty) {
  return replicas_.logs().update_cleaner_checkpoint(tp, first_dirty).code;
}

std::error_code cleaner_host::run_on_writer(const storage::topic_partition& tp,
                                            const std::function<std::error_code(storage::partition_log&)>& fn) {
  auto p = replicas_.get(tp);
  // Deleted or moved away since it was picked: nothing to install into.
  if (!p) return std::make_error_code(std::errc::no_such_file_or_directory);
  if (!begun_) {
    begun_ = true;
    spdlog::info("Cleaner 0: Beginning cleaning of log {}", storage::partition_dir_name(tp));
  }
  return wait_on(p->strand(), [&]() -> std::error_code {
    if (replicas_.get(tp) != p) return std::make_error_code(std::errc::no_such_file_or_directory);
    return fn(p->log());
  });
}

}  // namespace hw::broker
