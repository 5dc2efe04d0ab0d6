#include "broker/replica/fetcher_manager.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "broker/run_on.h"

namespace hw::broker {

fetcher_manager::fetcher_manager(asio::any_io_executor executor, node_id self, int32_t fetchers_per_source,
                                 std::string listener, fetcher_settings settings,
                                 std::function<int64_t()> broker_epoch, std::function<int64_t()> now_ms)
    : executor_(executor),
      self_(self),
      fetchers_per_source_(std::max(fetchers_per_source, 1)),
      listener_(std::move(listener)),
      settings_(settings),
      broker_epoch_(std::move(broker_epoch)),
      now_ms_(std::move(now_ms)) {}

int32_t fetcher_manager::index_of(const storage::topic_partition& tp) const {
  // Kafka's abs(31 * topic.hashCode + partition) % fetchers, with a string
  // hash of our own: which fetcher serves a partition is not visible.
  uint32_t h = 0;
  for (unsigned char c : tp.topic) h = h * 31 + c;
  h = h * 31 + static_cast<uint32_t>(tp.partition);
  return static_cast<int32_t>(h % static_cast<uint32_t>(fetchers_per_source_));
}

asio::awaitable<void> fetcher_manager::hand_over(const std::shared_ptr<replica_fetcher>& fetcher,
                                                 std::shared_ptr<partition> p, storage::leader_epoch leader_epoch) {
  // Where to start: the log end and the epoch of its last batch, read on
  // the partition's strand (the epoch cache is its writer's).
  struct start_point {
    storage::offset log_end;
    std::optional<storage::leader_epoch> latest;
  };
  const start_point start =
      co_await run_on(p->strand(), [&] { return start_point{p->log_end_offset(), p->latest_epoch()}; });
  fetcher->add(std::move(p), leader_epoch, start.log_end, start.latest);
}

asio::awaitable<bool> fetcher_manager::follow(std::shared_ptr<partition> p, node_id leader,
                                              storage::leader_epoch leader_epoch,
                                              const controller::metadata_image& image) {
  const storage::topic_partition tp = p->tp();
  co_await unfollow(tp);
  const controller::broker_registration* b = image.broker(leader);
  const controller::broker_endpoint* ep = b ? b->endpoint(listener_) : nullptr;
  if (!ep && b && !b->endpoints.empty()) ep = &b->endpoints.front();
  if (!ep || stopped_) co_return false;
  const key k{leader.value, index_of(tp)};
  std::shared_ptr<replica_fetcher> fetcher;
  std::shared_ptr<replica_fetcher> replaced;
  std::vector<assignment> moved;  // the replaced fetcher's other partitions
  {
    std::lock_guard lock(mutex_);
    auto it = fetchers_.find(k);
    if (it != fetchers_.end() && (it->second->host() != ep->host || it->second->port() != ep->port)) {
      replaced = it->second;
      fetchers_.erase(it);
      it = fetchers_.end();
      for (const auto& [other, a] : assigned_)
        if (a.fetcher == k) moved.push_back(a);
    }
    if (it == fetchers_.end()) {
      fetcher = std::make_shared<replica_fetcher>(executor_, self_, leader, ep->host, ep->port, settings_,
                                                  broker_epoch_, now_ms_);
      fetchers_.emplace(k, fetcher);
      fetcher->start();
      spdlog::info("Started replica fetcher {} for broker {} at {}:{}", k.index, leader.value, ep->host, ep->port);
    } else {
      fetcher = it->second;
    }
    assigned_[tp] = assignment{k, p, leader_epoch};
  }
  // The leader is at a new endpoint (it restarted on another port): its
  // other partitions move to the new fetcher, each from its log end.
  if (replaced) replaced->stop();
  for (auto& a : moved) co_await hand_over(fetcher, a.part, a.leader_epoch);
  co_await hand_over(fetcher, std::move(p), leader_epoch);
  co_return true;
}

asio::awaitable<void> fetcher_manager::unfollow(const storage::topic_partition& tp) {
  std::shared_ptr<replica_fetcher> fetcher;
  {
    std::lock_guard lock(mutex_);
    auto it = assigned_.find(tp);
    if (it == assigned_.end()) co_return;
    auto f = fetchers_.find(it->second.fetcher);
    if (f != fetchers_.end()) fetcher = f->second;
    assigned_.erase(it);
  }
  if (!fetcher) co_return;
  co_await fetcher->remove(tp);
  // A fetcher with nothing left stops.
  std::lock_guard lock(mutex_);
  if (fetcher->size() == 0) {
    for (auto it = fetchers_.begin(); it != fetchers_.end(); ++it) {
      if (it->second != fetcher) continue;
      const bool still_used = std::any_of(assigned_.begin(), assigned_.end(),
                                          [&](const auto& a) { return a.second.fetcher == it->first; });
      if (!still_used) {
        spdlog::info("Stopped replica fetcher {} for broker {}", it->first.index, it->first.source);
        it->second->stop();
        fetchers_.erase(it);
      }
      break;
    }
  }
}

void fetcher_manager::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  for (auto& [k, f] : fetchers_) f->stop();
  fetchers_.clear();
  assigned_.clear();
}

size_t fetcher_manager::fetcher_count() const {
  std::lock_guard lock(mutex_);
  return fetchers_.size();
}

int64_t fetcher_manager::max_lag() const {
  std::lock_guard lock(mutex_);
  int64_t lag = 0;
  for (const auto& [k, f] : fetchers_) lag = std::max(lag, f->max_lag());
  return lag;
}

}  // namespace hw::broker
