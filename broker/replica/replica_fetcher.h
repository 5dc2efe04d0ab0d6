#pragma once
// One follower fetcher: a connection to one source broker (the leader of
// the partitions it serves) and a loop that sends Fetch for every partition
// ready to fetch, as Kafka's ReplicaFetcherThread:
//
// - Fetch v16 on the inter-broker listener, from this replica (ReplicaState:
//   node id and broker epoch), at each partition's log end with the epoch of
//   its last batch; replica.fetch.{wait.max.ms, min.bytes, max.bytes,
//   response.max.bytes}; in an incremental fetch session (KIP-227) with
//   the leader, so that a request names only the partitions whose fetch
//   position changed and an answer carries only those with news.
// - Each partition's answer is applied on the partition's strand: records
//   appended as they are; a DivergingEpoch truncates (decided by
//   follower_state from the local epoch cache); OFFSET_OUT_OF_RANGE asks
//   the leader's latest and earliest offsets (ListOffsets as this replica)
//   and truncates or restarts as follower_state decides; the leader's HW
//   and log start follow.
// - Throttled partitions (replication_quota.h) that are behind the
//   leader's HW are left out of a fetch while the follower rate is over
//   its bound; the bytes fetched for throttled partitions count.
// - Errors back off replica.fetch.backoff.ms; a fenced epoch waits for the
//   metadata to give the partition a newer one.
//
// Ownership and threads: owned by the fetcher manager (shared_ptr: its
// coroutine holds it until it stops). Everything here runs on the
// fetcher's own strand; add/remove are posted to it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "broker/asio.h"
#include "broker/fetch/fetch_session_handler.h"
#include "broker/network/kafka_client.h"
#include "broker/replica/follower_state.h"
#include "broker/replica/partition.h"
#include "broker/replica/replication_quota.h"
#include "protocol/messages/fetch.h"

namespace hw::broker {

struct fetcher_settings {
  int32_t max_wait_ms = 500;                 // replica.fetch.wait.max.ms
  int32_t min_bytes = 1;                     // replica.fetch.min.bytes
  int32_t partition_max_bytes = 1'048'576;   // replica.fetch.max.bytes
  int32_t response_max_bytes = 10'485'760;   // replica.fetch.response.max.bytes
  int64_t backoff_ms = 1000;                 // replica.fetch.backoff.ms
  std::chrono::milliseconds request_timeout{30'000};  // replica.socket.timeout.ms
  // The follower side's replication throttle (owned by the node; null: none).
  replication_quota* quota = nullptr;
  // How this node's connections to the peers' inter-broker listener are protected.
  client_security security;
};

class replica_fetcher : public std::enable_shared_from_this<replica_fetcher> {
 public:
  replica_fetcher(asio::any_io_executor executor, node_id self, node_id source, std::string host, uint16_t port,
                  fetcher_settings settings, std::function<int64_t()> broker_epoch, std::function<int64_t()> now_ms);

  node_id source() const { return source_; }
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }

  void start();
  // Follows p at leader_epoch from log_end, whose last batch is at
  // latest_epoch (read by the caller on p's strand); replaces an earlier
  // entry. Posted: a remove() called later runs after it.
  void add(std::shared_ptr<partition> p, storage::leader_epoch leader_epoch, storage::offset log_end,
           std::optional<storage::leader_epoch> latest_epoch);
  // Resolves once p's answers can no longer be applied by this fetcher.
  asio::awaitable<void> remove(storage::topic_partition tp);
  void stop();
  // Partitions served (from any thread; approximate).
  size_t size() const { return size_.load(std::memory_order_relaxed); }
  // The largest lag (leader HW - fetch offset) over the partitions.
  int64_t max_lag() const { return max_lag_.load(std::memory_order_relaxed); }

 private:
  struct entry {
    std::shared_ptr<partition> part;
    follower_state state;
    uint64_t generation = 0;  // bumped on each add, so a late answer for an older entry is dropped
  };
  // A partition one Fetch asks for, keyed as the answer names it.
  struct asked_partition {
    std::pair<protocol::uuid, int32_t> key;
    storage::topic_partition tp;
    uint64_t generation;
    fetch_position position;
  };
  // Every partition ready now (sorted by key), those the session carries,
  // and whether the quota held any back.
  struct fetch_plan {
    std::vector<asked_partition> asked;
    std::vector<fetch::partition_request> wanted;
    bool held_back = false;
    const asked_partition* find(const protocol::uuid& topic_id, int32_t partition) const;
  };
  using fetched_partition = protocol::msg::fetch_response::partition_data;

  asio::awaitable<void> run();
  // One Fetch round: plan, send in the session, apply each partition's answer.
  asio::awaitable<void> fetch_once(int64_t now_ms);
  fetch_plan plan_fetch(int64_t now_ms) const;
  protocol::msg::fetch_request fetch_request_for(const fetch::fetch_session_handler::request& session) const;
  // Whether the answer as a whole is to be applied; if not, the session and
  // the asked partitions have taken the failure in.
  bool answer_usable(const std::error_code& error, protocol::error_code top, int32_t answered_session,
                     int32_t session_id, const fetch_plan& plan, int64_t answered_ms);
  // The entry an answer was asked for, if it is still followed at the
  // same generation.
  entry* current(const asked_partition& asked);
  asio::awaitable<void> apply_answer(const asked_partition& asked, const fetched_partition& answer,
                                     const frame_bytes& frame, int64_t answered_ms);
  asio::awaitable<void> truncate_diverging(const asked_partition& asked, std::shared_ptr<partition> p,
                                           diverging_epoch leader, int64_t answered_ms);
  asio::awaitable<void> append_fetched(const asked_partition& asked, std::shared_ptr<partition> p,
                                       const fetched_partition& answer, const frame_bytes& frame, int64_t answered_ms);
  asio::awaitable<void> reset_offsets(const storage::topic_partition& tp);
  void wake();

  asio::strand<asio::any_io_executor> strand_;
  node_id self_;
  node_id source_;
  std::string host_;
  uint16_t port_;
  fetcher_settings settings_;
  std::function<int64_t()> broker_epoch_;
  std::function<int64_t()> now_ms_;
  std::shared_ptr<kafka_client> client_;
  asio::steady_timer wake_;
  std::map<storage::topic_partition, entry> partitions_;  // strand only
  fetch::fetch_session_handler session_;                  // strand only
  uint64_t next_generation_ = 1;
  bool stopped_ = false;
  std::atomic<size_t> size_{0};
  std::atomic<int64_t> max_lag_{0};
};

}  // namespace hw::broker
