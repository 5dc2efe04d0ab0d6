#pragma once
// This broker's membership of the cluster (Kafka's BrokerLifecycleManager):
// it registers with the controller (BrokerRegistration, with its advertised
// listeners, supported features, log dirs and the broker epoch of its last
// clean shutdown), then heartbeats every broker.heartbeat.interval.ms with
// the metadata offset it has applied; the controller unfences it once it
// has caught up. start() returns when the broker is unfenced and has
// applied the metadata that unfenced it.
//
// Ownership and threads: owned by the node; its loop runs on its own
// strand. In combined mode it talks to the in-process controller.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "broker/bound_listener.h"
#include "broker/services.h"
#include "protocol/wire/uuid.h"

namespace hw::broker {

class broker_lifecycle {
 public:
  // log_dirs: the ids of the online log dirs, registered; offline_dirs:
  // the ids of the failed ones, read for each heartbeat (KIP-858).
  broker_lifecycle(asio::any_io_executor executor, const broker_services& services,
                   std::vector<bound_listener> bound, std::optional<int64_t> previous_broker_epoch,
                   std::vector<protocol::uuid> log_dirs,
                   std::function<std::vector<protocol::uuid>()> offline_dirs = {});

  // An error message when registration fails or the broker is not
  // unfenced within the registration timeout.
  asio::awaitable<std::optional<std::string>> start();
  // Stops heartbeating.
  asio::awaitable<void> stop();
  int64_t broker_epoch() const { return broker_epoch_.load(std::memory_order_acquire); }
  // A log dir failed: the next heartbeat goes now, not at its interval, so
  // the controller moves that dir's leaderships away. Any thread.
  void dir_failed();

 private:
  // True when unfenced; *should_shut_down reports the controller's answer
  // to want_shut_down.
  asio::awaitable<bool> heartbeat(bool want_shut_down = false, bool* should_shut_down = nullptr);
  asio::awaitable<void> heartbeat_loop();

  asio::strand<asio::any_io_executor> strand_;
  const broker_services& services_;
  std::vector<bound_listener> bound_;
  std::optional<int64_t> previous_broker_epoch_;
  std::vector<protocol::uuid> log_dirs_;  // directory ids, from meta.properties
  std::function<std::vector<protocol::uuid>()> offline_dirs_;
  std::atomic<bool> urgent_{false};  // heartbeat without waiting for the interval
  bool looping_ = false;             // strand only: heartbeat_loop runs
  protocol::uuid incarnation_id_;
  std::atomic<int64_t> broker_epoch_{-1};
  asio::steady_timer timer_;
  std::atomic<bool> stopping_{false};
};

}  // namespace hw::broker
