#pragma once
// Sends partition leaders' ISR changes to the active controller as
// AlterPartition (v3: topics by id, ISR members with their broker epochs),
// as Kafka's AlterPartitionManager: changes queue per partition (a newer
// one replaces an unsent older one), one request is in flight at a time and
// carries everything queued, each partition's answer goes back to the
// partition's strand, and what the partition says to retry (or a request
// that failed as a whole) is sent again after a pause.
//
// Ownership and threads: owned by the node; submit() from any strand; the
// queue lives on the manager's own strand.

#include <chrono>
#include <functional>
#include <map>
#include <memory>

#include "broker/asio.h"
#include "broker/replica/leader_state.h"
#include "broker/replica/partition.h"
#include "broker/replica/replica_manager.h"
#include "broker/services.h"

namespace hw::broker {

class alter_partition_manager {
 public:
  alter_partition_manager(asio::any_io_executor executor, const broker_services& services,
                          std::function<int64_t()> broker_epoch,
                          std::chrono::milliseconds retry_backoff = std::chrono::milliseconds(100));

  void submit(std::shared_ptr<partition> p, isr_change change);
  // Every `interval` (Kafka: replica.lag.time.max.ms / 2), asks each led
  // partition whether followers fell out of sync, and sends the shrinks.
  void start_isr_expiration(replica_manager& replicas, std::chrono::milliseconds interval);
  // Stops sending; answers still in flight are dropped.
  void stop();

 private:
  struct queued {
    std::shared_ptr<partition> part;
    isr_change change;
  };
  asio::awaitable<void> send_all();
  asio::awaitable<void> expire_isr(replica_manager& replicas, std::chrono::milliseconds interval);
  // The answer to one partition's change, for the ISR metrics.
  void count(isr_change::kind what, protocol::error_code error, alter_outcome outcome) const;

  asio::strand<asio::any_io_executor> strand_;
  const broker_services& services_;
  std::function<int64_t()> broker_epoch_;
  std::chrono::milliseconds retry_backoff_;
  std::map<storage::topic_partition, queued> queue_;  // strand only
  bool sending_ = false;                              // strand only
  bool stopped_ = false;                              // strand only
  std::unique_ptr<asio::steady_timer> expiration_timer_;  // strand only
};

}  // namespace hw::broker
