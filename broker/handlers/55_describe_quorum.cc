// DescribeQuorum (key 55), versions 0-2: the state of the metadata quorum
// (kafka-metadata-quorum.sh describe --status / --replication): leader,
// epoch, high watermark, each voter's log end offset and, from v2, the
// voters' listeners.
//
// Kafka's rules (KafkaRaftClient.handleDescribeQuorumRequest, RaftUtil
// .singletonDescribeQuorumResponse; brokers forward the request to the
// controller): the request must name exactly __cluster_metadata partition
// 0, else each requested partition is UNKNOWN_TOPIC_OR_PARTITION with the
// code's message; a node that does not lead answers NOT_LEADER_OR_FOLLOWER;
// the leader reports itself fetched and caught up "now". Observers are the
// replicas that fetch the metadata log without voting: alive brokers that
// are not voters (none in a single combined node, whose broker reads the
// log in process).

#include <algorithm>

#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_service.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/metadata/quorum_voters.h"
#include "broker/services.h"
#include "config/broker_config.h"
#include "protocol/error_code.h"
#include "protocol/messages/describe_quorum.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::describe_quorum_request;
using protocol::msg::describe_quorum_response;

constexpr std::string_view metadata_topic = "__cluster_metadata";

bool names_metadata_partition(const describe_quorum_request& r) {
  return r.topics.size() == 1 && r.topics[0].topic_name == metadata_topic && r.topics[0].partitions.size() == 1 &&
         r.topics[0].partitions[0].partition_index == 0;
}

describe_quorum_response partition_errors(const describe_quorum_request& r, error_code e, std::string message) {
  describe_quorum_response out;
  for (const auto& t : r.topics) {
    auto& tr = out.topics.emplace_back();
    tr.topic_name = t.topic_name;
    for (const auto& p : t.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      pr.error_code = static_cast<int16_t>(e);
      pr.error_message = message;
    }
  }
  return out;
}

// A static voter's endpoint from controller.quorum.voters, under the first
// controller listener name, as Kafka names a static voter's endpoint.
std::optional<describe_quorum_response::listener> static_voter_endpoint(const config::broker_config* cfg, int32_t id) {
  if (!cfg) return std::nullopt;
  for (const auto& v : parse_quorum_voters(cfg->controller_quorum_voters)) {
    if (v.id != id) continue;
    describe_quorum_response::listener l;
    l.name = cfg->controller_listener_names.empty() ? "CONTROLLER" : cfg->controller_listener_names.front();
    l.host = v.host;
    l.port = v.port;
    return l;
  }
  return std::nullopt;
}

describe_quorum_response::replica_state replica(int32_t id, int64_t log_end_offset, int64_t fetch_ms) {
  describe_quorum_response::replica_state s;
  s.replica_id = id;
  s.log_end_offset = log_end_offset;
  s.last_fetch_timestamp = fetch_ms;
  s.last_caught_up_timestamp = fetch_ms;
  return s;
}

describe_quorum_response describe(const broker_services& s, const controller_service& c) {
  auto image = s.metadata->image();
  const int64_t now_ms = s.now_ms ? s.now_ms() : 0;
  const int64_t hw = c.high_watermark();
  describe_quorum_response out;
  auto& p = out.topics.emplace_back();
  p.topic_name = std::string(metadata_topic);
  auto& part = p.partitions.emplace_back();
  part.partition_index = 0;
  part.leader_id = c.node_id();
  part.leader_epoch = c.leader_epoch();
  part.high_watermark = hw;
  for (int32_t voter : c.voters()) {
    // One voter today: it is the leader, and its log end is the committed end.
    part.current_voters.push_back(replica(voter, voter == c.node_id() ? hw : -1, voter == c.node_id() ? now_ms : -1));
    auto& node = out.nodes.emplace_back();
    node.node_id = voter;
    if (auto it = image->controllers.find(voter); it != image->controllers.end()) {
      for (const auto& e : it->second.endpoints) node.listeners.push_back({e.name, e.host, e.port, {}});
    } else if (auto e = static_voter_endpoint(s.config, voter)) {
      node.listeners.push_back(*e);
    }
  }
  for (int32_t broker : image->alive_brokers()) {
    if (std::find(c.voters().begin(), c.voters().end(), broker) != c.voters().end()) continue;
    part.observers.push_back(replica(broker, -1, -1));
  }
  return out;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_quorum_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (!names_metadata_partition(*request)) {
    co_return respond(ctx, partition_errors(*request, error_code::unknown_topic_or_partition,
                                            "This server does not host this topic-partition."));
  }
  const controller_service* c = ctx.services->controller;
  if (!c || c->leader_epoch() < 0) {
    co_return respond(ctx, partition_errors(*request, error_code::not_leader_or_follower,
                                            "For requests intended only for the leader, this error indicates that "
                                            "the broker is not the current leader. For requests intended for any "
                                            "replica, this error indicates that the broker is not a replica of the "
                                            "topic partition."));
  }
  co_return respond(ctx, describe(*ctx.services, *c));
}

}  // namespace

api_handler describe_quorum_handler() { return {55, 0, 2, &handle}; }

}  // namespace hw::broker
