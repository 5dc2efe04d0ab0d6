#pragma once
// Which replica fetcher serves a followed partition (Kafka's
// ReplicaFetcherManager): one fetcher per source broker and fetcher index
// (num.replica.fetchers per source; a partition's index is a hash of its
// name), reaching the leader at its endpoint on the inter-broker listener as
// the metadata image has it. Fetchers start on their first partition and
// stop with their last; a leader that moved to another endpoint (it
// restarted on another port) gets a new fetcher, and every partition of the
// old one moves to it.
//
// Ownership and threads: owned by the node; follow/unfollow are called by
// the replica manager on the publisher strand (a leaf mutex guards the maps
// for the metrics readers).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "broker/asio.h"
#include "broker/replica/partition.h"
#include "broker/replica/replica_fetcher.h"
#include "controller/metadata/image.h"

namespace hw::broker {

class fetcher_manager {
 public:
  fetcher_manager(asio::any_io_executor executor, node_id self, int32_t fetchers_per_source, std::string listener,
                  fetcher_settings settings, std::function<int64_t()> broker_epoch, std::function<int64_t()> now_ms);

  // Follow `leader` for p at leader_epoch (leaving any other fetcher).
  // False when the leader has no endpoint on the listener (not registered):
  // the partition is followed once a later image has one.
  asio::awaitable<bool> follow(std::shared_ptr<partition> p, node_id leader, storage::leader_epoch leader_epoch,
                               const controller::metadata_image& image);
  // Stops fetching for tp; once it returns no fetcher applies answers to it.
  asio::awaitable<void> unfollow(const storage::topic_partition& tp);
  void stop();

  bool follows(const storage::topic_partition& tp) const {
    std::lock_guard lock(mutex_);
    return assigned_.count(tp) != 0;
  }
  size_t fetcher_count() const;
  // The largest lag over every fetcher's partitions (ReplicaFetcherManager MaxLag).
  int64_t max_lag() const;

 private:
  struct key {
    int32_t source;
    int32_t index;
    auto operator<=>(const key&) const = default;
  };
  // A followed partition: its fetcher and the epoch it follows at.
  struct assignment {
    key fetcher;
    std::shared_ptr<partition> part;
    storage::leader_epoch leader_epoch;
  };
  int32_t index_of(const storage::topic_partition& tp) const;
  asio::awaitable<void> hand_over(const std::shared_ptr<replica_fetcher>& fetcher, std::shared_ptr<partition> p,
                                  storage::leader_epoch leader_epoch);

  asio::any_io_executor executor_;
  node_id self_;
  int32_t fetchers_per_source_;
  std::string listener_;
  fetcher_settings settings_;
  std::function<int64_t()> broker_epoch_;
  std::function<int64_t()> now_ms_;
  mutable std::mutex mutex_;  // leaf: the maps, read by metrics
  std::map<key, std::shared_ptr<replica_fetcher>> fetchers_;
  std::map<storage::topic_partition, assignment> assigned_;
  bool stopped_ = false;
};

}  // namespace hw::broker
