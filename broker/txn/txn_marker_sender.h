#pragma once
// Writes a transaction's markers (Kafka's TransactionMarkerChannelManager):
// for one marker job, WriteTxnMarkers to the leader of each partition on the
// inter-broker listener, grouped by leader, until every partition has its
// marker. A partition whose topic is gone counts as done; one without a
// leader, or whose leader moved or cannot take it now (NOT_LEADER_OR_FOLLOWER,
// NOT_ENOUGH_REPLICAS, a timeout, a lost connection, ...), is tried again
// after retry.backoff.ms with fresh metadata. A fence (a newer coordinator
// epoch or producer epoch at the partition) or a job its coordinator no
// longer wants ends the job without reporting it done: the coordinator that
// took over writes the markers again.
//
// Ownership and threads: owned by the broker node; write() from any strand.
// Its clients and jobs live on its own strand.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "broker/asio.h"
#include "broker/network/node_clients.h"
#include "broker/txn/txn_shard.h"

namespace hw::broker {
class metadata_publisher;
}  // namespace hw::broker

namespace hw::broker::txn {

struct marker_sender_options {
  std::string listener;  // inter.broker.listener.name
  int32_t self = -1;     // node.id, for the client id
  std::chrono::milliseconds request_timeout{30000};  // request.timeout.ms
  std::chrono::milliseconds retry_backoff{100};      // retry.backoff.ms
  // How this node's connections to the peers' inter-broker listener are protected.
  client_security security;
};

class txn_marker_sender {
 public:
  // Whether the job's coordinator still owns it (same coordinator epoch,
  // still loaded); asked before each round.
  using wanted_fn = std::function<bool(const marker_job&)>;

  txn_marker_sender(asio::any_io_executor executor, metadata_publisher& metadata, marker_sender_options options,
                    wanted_fn wanted);
  ~txn_marker_sender();

  // Starts writing the job's markers; done() once all are written (from the
  // sender's strand).
  void write(marker_job job, std::function<void()> done);

  // Closes the connections; jobs in flight end without done().
  void stop();

 private:
  asio::awaitable<void> run(marker_job job, std::function<void()> done);

  asio::strand<asio::any_io_executor> strand_;
  metadata_publisher& metadata_;
  marker_sender_options options_;
  wanted_fn wanted_;
  node_clients clients_;
  bool stopped_ = false;
};

}  // namespace hw::broker::txn
