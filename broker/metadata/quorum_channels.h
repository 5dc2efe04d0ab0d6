#pragma once
// The raft driver's connections to the other quorum members: one per voter
// for the quorum's own requests (Vote, BeginQuorumEpoch, EndQuorumEpoch,
// Fetch, FetchSnapshot), and a second one per node for controller requests
// forwarded to the leader, which may wait for a commit that needs this
// node's own Fetch and so must not queue behind it. A request goes out in
// the core's terms and its answer comes back in them (raft_wire translates);
// endpoints named by Fetch answers (an observer that started from bootstrap
// servers learns the leader's) are remembered for later connections.
//
// Owner/thread: the raft driver; everything runs on the driver's strand.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/asio.h"
#include "broker/metadata/quorum_voters.h"
#include "broker/network/kafka_client.h"
#include "controller/raft/raft_messages.h"

namespace hw::broker {

class stall_guard;

struct quorum_channels_options {
  int32_t node_id = 1;
  std::string cluster_id;
  int64_t request_timeout_ms = 2000;  // controller.quorum.request.timeout.ms
  // How this node's connections to the peers' controller listener are protected.
  client_security security;
};

class quorum_channels {
 public:
  quorum_channels(asio::any_io_executor strand, quorum_channels_options options);

  // The voters (or, for an observer, the bootstrap servers under pseudo
  // ids) this node may connect to. A node whose endpoint changed (a dynamic
  // quorum's voter set) is connected to anew.
  void set_voters(std::vector<quorum_voter> voters);
  // A connection of its own to an address no voter has (a controller being
  // added, asked for its ApiVersions); the caller closes it.
  std::shared_ptr<kafka_client> client_to(const std::string& host, uint16_t port);
  // Tells `guard` when a metadata Fetch is answered (stall_guard.h).
  void watch_stalls(stall_guard* guard) { stall_guard_ = guard; }

  // The answer to one request, or none: no connection to that node, an
  // error, a timeout (the core asks again).
  asio::awaitable<std::optional<controller::raft::message>> call(controller::raft::node_id to,
                                                                controller::raft::message m);
  // The connection to `node` (opened on first use), or none when its
  // endpoint is unknown.
  std::shared_ptr<kafka_client> client_for(int32_t node, bool forwarding = false);
  void close();

 private:
  asio::awaitable<std::optional<controller::raft::message>> fetch(std::shared_ptr<kafka_client> client,
                                                                 controller::raft::node_id to,
                                                                 controller::raft::fetch_request f);

  asio::any_io_executor strand_;
  quorum_channels_options options_;
  std::vector<quorum_voter> voters_;
  std::map<int32_t, std::shared_ptr<kafka_client>> clients_;
  std::map<int32_t, std::shared_ptr<kafka_client>> forwarding_clients_;
  std::map<int32_t, quorum_voter> learned_endpoints_;
  stall_guard* stall_guard_ = nullptr;
};

}  // namespace hw::broker
