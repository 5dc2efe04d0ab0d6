#pragma once
// The partitions this broker hosts (Kafka's ReplicaManager): created,
// given their role, and removed as published metadata images say; looked
// up by request handlers.
//
// Ownership and threads: owned by main. apply() runs on the metadata
// publisher's strand and hops to each partition's strand for its role
// change; get() and all() may be called from any thread (a leaf mutex
// guards the map).

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "broker/asio.h"
#include "broker/replica/partition.h"
#include "storage/log_manager.h"

namespace hw::broker {

// One partition's new place in the cluster; nothing in role: deleted.
struct partition_update {
  storage::topic_partition tp;
  protocol::uuid topic_id;
  std::optional<partition_role> role;
  // The topic's effective log settings (its configs over the broker's).
  storage::log_config log_config;
};

class replica_manager {
 public:
  // Told (on the publisher strand) after a hosted partition's role was
  // applied (is_leader, leader epoch) and when a partition stops being
  // hosted here (false, -1): the group coordinator loads and unloads shards.
  using leadership_listener = std::function<void(const storage::topic_partition&, bool is_leader, int32_t epoch)>;

  replica_manager(asio::any_io_executor executor, storage::log_manager& logs, int32_t self);

  // Set before the first apply().
  void set_leadership_listener(leadership_listener listener) { listener_ = std::move(listener); }

  std::shared_ptr<partition> get(const storage::topic_partition& tp) const;
  std::vector<std::shared_ptr<partition>> all() const;
  int32_t self() const { return self_; }
  storage::log_manager& logs() { return logs_; }

  // Around deleting a partition's log: `before` may wait (off the io
  // threads) until nothing else reads the log, `after` releases it. Set by
  // the node before any apply().
  using removal_hook = std::function<asio::awaitable<void>(const storage::topic_partition&, bool before)>;
  void set_removal_hook(removal_hook hook) { removal_hook_ = std::move(hook); }

  // Creates logs for new replicas here, applies roles, deletes what went.
  // Returns the first error (the others are still applied).
  asio::awaitable<std::error_code> apply(std::vector<partition_update> updates, int64_t now_ms);

 private:
  asio::any_io_executor executor_;
  storage::log_manager& logs_;
  int32_t self_;
  leadership_listener listener_;
  removal_hook removal_hook_;
  mutable std::mutex mutex_;  // leaf: the map, read by handlers on any strand
  std::map<storage::topic_partition, std::shared_ptr<partition>> partitions_;
};

}  // namespace hw::broker
