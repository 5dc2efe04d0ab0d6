#pragma once
// The broker's view of the cluster metadata: committed batches from the
// metadata log are replayed into a metadata_delta over the current image;
// each result is published (handlers read it through image()) and then
// applied to the replica manager — logs created, roles changed, partitions
// deleted — for the partitions this broker hosts.
//
// Ownership and threads: owned by main. on_commit() may be called from any
// thread in log order (the controller strand calls it); batches are queued
// and applied one at a time on the publisher's strand. image() is safe from
// any thread.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "broker/metadata/controller_service.h"
#include "broker/replica/replica_manager.h"
#include "broker/quota/client_quotas.h"
#include "broker/replica/replication_quota.h"
#include "broker/security/authorizer_store.h"
#include "broker/security/delegation_token_store.h"
#include "broker/security/scram_credential_store.h"
#include "config/broker_config.h"
#include "controller/metadata/config_resolver.h"
#include "controller/metadata/image.h"
#include "storage/log_config.h"

namespace hw::broker {

class metadata_publisher {
 public:
  metadata_publisher(asio::any_io_executor executor, replica_manager& replicas, const config::broker_config& config,
                     std::function<int64_t()> now_ms);

  // The replication throttles to keep in step with the throttle configs
  // (per-broker rates, topics' throttled replicas); call before the first
  // batch. Either may be null.
  void set_replication_quotas(replication_quota* leader, replication_quota* follower) {
    leader_quota_ = leader;
    follower_quota_ = follower;
  }

  // The client quotas to set when a batch changes them (null: none); set
  // before the first batch.
  void set_client_quotas(quota::client_quotas* quotas) { client_quotas_ = quotas; }

  // The authorizer to rebuild when a batch changes the ACLs (null: none);
  // set before the first batch.
  void set_authorizer(authorizer_store* store) { authorizer_ = store; }
  // The delegation tokens to refresh when a batch changes them (null: none).
  void set_delegation_tokens(delegation_token_store* store) { tokens_ = store; }

  // Called on the publisher's strand with each new image, before its
  // partition changes are applied (so a coordinator loading on a new
  // leadership already sees the features in force); add before the first
  // batch.
  void add_image_listener(std::function<void(const controller::metadata_image&)> listener) {
    image_listeners_.push_back(std::move(listener));
  }

  // The image's SCRAM credentials for the SASL servers, kept in step with
  // each published image (before its listeners run).
  const scram_credential_store& scram_credentials() const { return scram_credentials_; }

  void on_commit(const committed_batch& batch);
  std::shared_ptr<const controller::metadata_image> image() const;
  // The offset of the last record applied (-1 before any).
  int64_t applied_offset() const;
  // Resolves once every record below `end` is applied, or after timeout;
  // true when applied.
  asio::awaitable<bool> wait_applied(storage::offset end, std::chrono::milliseconds timeout);
  // At shutdown, once nothing commits any more: batches not yet applied are
  // dropped and the one being applied (its role changes, log creations and
  // deletions) is waited for, up to `timeout`, so that the logs can close
  // under it. Blocks: call from a thread that is not the executor's.
  // False if the apply was still running at the timeout.
  bool stop(std::chrono::milliseconds timeout);

 private:
  asio::awaitable<void> drain();
  asio::awaitable<void> apply(const committed_batch& batch);
  std::vector<partition_update> partition_updates(const controller::metadata_image& before,
                                                  const controller::metadata_image& after,
                                                  const std::set<std::string>& reconfigured_topics) const;
  // The topic's log settings; with `leader`, also what its leader needs
  // (min.insync.replicas, replica.lag.time.max.ms), with `limits` what a
  // produce is checked against.
  void update_replication_quotas(const controller::metadata_image& image) const;
  storage::log_config log_config_for(const controller::metadata_image& image, const std::string& topic,
                                     leader_settings* leader = nullptr, produce_limits* limits = nullptr) const;

  asio::strand<asio::any_io_executor> strand_;
  replica_manager& replicas_;
  const config::broker_config& config_;
  // Topics' effective configs for this broker; used on the strand only.
  controller::config_resolver resolver_;
  std::function<int64_t()> now_ms_;
  replication_quota* leader_quota_ = nullptr;
  replication_quota* follower_quota_ = nullptr;
  std::vector<std::function<void(const controller::metadata_image&)>> image_listeners_;
  scram_credential_store scram_credentials_;
  authorizer_store* authorizer_ = nullptr;
  delegation_token_store* tokens_ = nullptr;
  quota::client_quotas* client_quotas_ = nullptr;

  mutable std::mutex mutex_;  // leaf: the queue, the published image, waiters
  std::deque<committed_batch> queue_;
  bool draining_ = false;
  bool stopped_ = false;
  std::condition_variable drained_;  // draining_ went false
  std::shared_ptr<const controller::metadata_image> image_;
  int64_t applied_offset_ = -1;
  struct waiter {
    int64_t end;
    std::shared_ptr<asio::steady_timer> timer;
  };
  std::vector<waiter> waiters_;
};

}  // namespace hw::broker
