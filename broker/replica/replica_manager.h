#pragma once
// The partitions this broker hosts (Kafka's ReplicaManager): created,
// given their role, and removed as published metadata images say; looked
// up by request handlers.
//
// Ownership and threads: owned by main. apply() runs on the metadata
// publisher's strand (several partitions' updates interleaved there) and
// hops to each partition's strand for its role change; get() and all() may be called from any thread (a leaf mutex
// guards the map).

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "broker/asio.h"
#include "broker/replica/fetcher_manager.h"
#include "broker/replica/partition.h"
#include "controller/metadata/image.h"
#include "storage/log_manager.h"

namespace hw::broker {

// One partition's new place in the cluster; nothing in role: deleted.
struct partition_update {
  storage::topic_partition tp;
  protocol::uuid topic_id;
  std::optional<partition_role> role;
  // The topic's effective log settings (its configs over the broker's).
  storage::log_config log_config;
  // What a leader of it needs (min.insync.replicas, replica.lag.time.max.ms).
  leader_settings leader;
  // What a produce to it is checked against (max.message.bytes, timestamps).
  produce_limits limits;
  // The log dir the controller has for this broker's replica (KIP-858):
  // a real directory id, or Kafka's reserved UNASSIGNED/MIGRATING ids;
  // nothing before metadata.version 3.7-IV2 (dirs are not tracked).
  std::optional<protocol::uuid> directory;
};

class replica_manager {
 public:
  // Told (on the publisher strand) after a hosted partition's role was
  // applied (is_leader, leader epoch) and when a partition stops being
  // hosted here (false, -1): the group coordinator loads and unloads shards.
  using leadership_listener = std::function<void(const storage::topic_partition&, bool is_leader, int32_t epoch)>;

  replica_manager(asio::any_io_executor executor, storage::log_manager& logs, int32_t self);

  // The registered brokers (from the current metadata image), for ISR
  // eligibility; set before the first apply(). Called from any strand.
  void set_broker_lookup(broker_lookup lookup) { brokers_ = std::move(lookup); }
  // This broker's registration epoch once registered (-1 before).
  void set_broker_epoch(int64_t epoch) { broker_epoch_.store(epoch, std::memory_order_release); }
  int64_t broker_epoch() const { return broker_epoch_.load(std::memory_order_acquire); }

  // Set before the first apply().
  void set_leadership_listener(leadership_listener listener) { listener_ = std::move(listener); }
  // Told (on the publisher strand) when a hosted replica's log is in
  // another dir than the controller has for it: the broker reports the
  // dir that holds it (AssignReplicasToDirs). Set before the first apply().
  using directory_listener = std::function<void(const protocol::uuid& topic_id, int32_t partition,
                                                const protocol::uuid& dir)>;
  void set_directory_listener(directory_listener listener) { directory_listener_ = std::move(listener); }

  std::shared_ptr<partition> get(const storage::topic_partition& tp) const;
  std::vector<std::shared_ptr<partition>> all() const;
  node_id self() const { return self_; }
  storage::log_manager& logs() { return logs_; }

  // Around deleting a partition's log: `before` may wait (off the io
  // threads) until nothing else reads the log, `after` releases it. Set by
  // the node before any apply().
  using removal_hook = std::function<asio::awaitable<void>(const storage::topic_partition&, bool before)>;
  void set_removal_hook(removal_hook hook) { removal_hook_ = std::move(hook); }

  // Who fetches for the partitions this broker follows; set before the
  // first apply() (none: nothing is fetched, as in unit tests).
  void set_fetchers(fetcher_manager* fetchers) { fetchers_ = fetchers; }

  // Creates logs for new replicas here, applies roles, deletes what went;
  // followers are handed to their leader's fetcher (whose endpoint the
  // image has). Returns the first error (the others are still applied).
  asio::awaitable<std::error_code> apply(std::vector<partition_update> updates, int64_t now_ms,
                                         std::shared_ptr<const controller::metadata_image> image = nullptr);
  // Followers whose leader had no endpoint yet, tried again with a newer image.
  asio::awaitable<void> retry_follows(std::shared_ptr<const controller::metadata_image> image);
  bool has_unfollowed() const { return !unfollowed_.empty(); }

 private:
  // Role changes in flight at once; their file syncs run on role_pool_.
  static constexpr size_t k_parallel_role_changes = 16;
  using created_log = std::pair<storage::topic_partition, std::shared_ptr<storage::partition_log>>;
  asio::awaitable<std::error_code> apply_one(partition_update& u, int64_t now_ms,
                                             const std::shared_ptr<const controller::metadata_image>& image,
                                             std::vector<created_log>& created);
  // Steps of apply_one: a partition no longer hosted here goes with its
  // log; a hosted one is found or created (null: its log could not be),
  // and takes its role.
  asio::awaitable<std::error_code> remove_partition(const storage::topic_partition& tp);
  asio::awaitable<std::shared_ptr<partition>> hosted_partition(const partition_update& u, int64_t now_ms,
                                                               std::vector<created_log>& created,
                                                               std::error_code* error);
  asio::awaitable<std::error_code> take_role(const std::shared_ptr<partition>& p, const partition_update& u,
                                             int64_t now_ms);

  asio::any_io_executor executor_;
  storage::log_manager& logs_;
  node_id self_;
  leadership_listener listener_;
  directory_listener directory_listener_;
  removal_hook removal_hook_;
  broker_lookup brokers_;
  std::atomic<int64_t> broker_epoch_{-1};
  fetcher_manager* fetchers_ = nullptr;
  // Publisher strand: followers not handed to a fetcher yet.
  std::map<storage::topic_partition, std::pair<node_id, storage::leader_epoch>> unfollowed_;
  mutable std::mutex mutex_;  // leaf: the map, read by handlers on any strand
  std::map<storage::topic_partition, std::shared_ptr<partition>> partitions_;
  // Blocking writes of role changes (a new leader's epoch checkpoint).
  asio::thread_pool role_pool_{8};
};

}  // namespace hw::broker
