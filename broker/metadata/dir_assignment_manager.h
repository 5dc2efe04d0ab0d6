#pragma once
// Tells the active controller which log dir holds each of this broker's
// replicas (AssignReplicasToDirs, KIP-858), as Kafka's AssignmentsManager:
// a broker with several log.dirs places new replicas itself (the controller
// assigns them UNASSIGNED), and a replica moved between dirs changes its
// dir; the controller needs to know, so that a failed dir's replicas lose
// their leaderships and ISR places. Assignments queue per partition (a
// newer one replaces an unsent one); one request is in flight at a time
// with everything queued (at most 2,250 partitions, Kafka's limit); an
// assignment the image no longer calls for (topic deleted, replica moved
// away, dir already recorded) is dropped; a refusal is queued again, a
// request that failed as a whole too, after a backoff doubling from 100 ms
// to 10 s.
//
// Ownership and threads: owned by the node; submit() from any strand; the
// queue lives on the manager's own strand.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "broker/asio.h"
#include "broker/services.h"
#include "protocol/wire/uuid.h"

namespace hw::broker {

class dir_assignment_manager {
 public:
  dir_assignment_manager(asio::any_io_executor executor, const broker_services& services,
                         std::function<int64_t()> broker_epoch);

  void submit(const protocol::uuid& topic_id, int32_t partition, const protocol::uuid& dir);
  // Stops sending; what is queued is dropped.
  void stop();

 private:
  using key = std::pair<protocol::uuid, int32_t>;  // topic id, partition
  asio::awaitable<void> send_all();
  // Whether the current image still wants `dir` recorded for the replica.
  bool still_needed(const key& k, const protocol::uuid& dir) const;

  asio::strand<asio::any_io_executor> strand_;
  const broker_services& services_;
  std::function<int64_t()> broker_epoch_;
  std::map<key, protocol::uuid> queue_;  // strand only
  bool sending_ = false;                 // strand only
  bool stopped_ = false;                 // strand only
  asio::steady_timer pause_;             // strand only
};

}  // namespace hw::broker
