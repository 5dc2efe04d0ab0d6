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
// replicas that fetch the metadata log without voting (brokers without a
// controller). The raft driver holds all of it.

#include <algorithm>
#include <chrono>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/raft_driver.h"
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

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_quorum_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // DESCRIBE on the cluster first (a broker checks it for the client it
  // forwards for): the error and its message at the top level.
  if (const api_acl_check& check = api_acl(55, "cluster"); !authorize(ctx, check)) {
    describe_quorum_response refused;
    refused.error_code = static_cast<int16_t>(check.refusal);
    refused.error_message = std::string(authorization_error_message(check.refusal));
    co_return respond(ctx, refused);
  }
  if (!names_metadata_partition(*request)) {
    co_return respond(ctx, partition_errors(*request, error_code::unknown_topic_or_partition,
                                            "This server does not host this topic-partition."));
  }
  raft_driver* raft = ctx.services->raft;
  if (raft) {
    auto response = co_await raft->describe_quorum();
    if (response) co_return respond(ctx, *response);
    if (!ctx.services->is_controller_listener(ctx.listener_name)) {
      // A broker asks the leader, as Kafka's brokers forward the request.
      std::vector<uint8_t> body(ctx.body.begin(), ctx.body.end());
      client_response answer;
      auto ec = co_await raft->call_leader(55, ctx.api_version, std::move(body), std::chrono::seconds(5), &answer);
      if (!ec) co_return handler_result::respond(encode_raw_response(ctx.correlation_id, ctx.response_header_version, answer.body()));
    }
  }
  co_return respond(ctx, partition_errors(*request, error_code::not_leader_or_follower,
                                          "For requests intended only for the leader, this error indicates that "
                                          "the broker is not the current leader. For requests intended for any "
                                          "replica, this error indicates that the broker is not a replica of the "
                                          "topic partition."));
}

}  // namespace

api_handler describe_quorum_handler() { return {55, 0, 2, &handle}; }

}  // namespace hw::broker
