#pragma once
// The partitions this broker hosts (Kafka's ReplicaManager): created,
// given their role, and removed as published metadata images say; looked
// up by request handlers.
//
// Ownership and threads: owned by main. apply() runs on the metadata
// publisher's strand and hops to each partition's strand for its role
// change; get() and all() may be called from any thread (a leaf mutex
// guards the map).

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
  replica_manager(asio::any_io_executor executor, storage::log_manager& logs, int32_t self);

  std::shared_ptr<partition> get(const storage::topic_partition& tp) const;
  std::vector<std::shared_ptr<partition>> all() const;
  int32_t self() const { return self_; }
  storage::log_manager& logs() { return logs_; }

  // Creates logs for new replicas here, applies roles, deletes what went.
  // Returns the first error (the others are still applied).
  asio::awaitable<std::error_code> apply(std::vector<partition_update> updates, int64_t now_ms);

 private:
  asio::any_io_executor executor_;
  storage::log_manager& logs_;
  int32_t self_;
  mutable std::mutex mutex_;  // leaf: the map, read by handlers on any strand
  std::map<storage::topic_partition, std::shared_ptr<partition>> partitions_;
};

}  // namespace hw::broker
