// DescribeCluster (key 60), versions 0-2: the alive brokers reachable on
// the client's listener (with the fenced ones too when v2 asks), the
// cluster id, a controller id and the cluster operations the client may
// perform.
//
// Kafka's rules (KafkaApis.handleDescribeCluster, AuthHelper
// .computeDescribeClusterResponse): a broker answers endpoint type BROKER
// (1) only — CONTROLLER is MISMATCHED_ENDPOINT_TYPE and an unknown type
// UNSUPPORTED_ENDPOINT_TYPE (INVALID_REQUEST at v0); in KRaft the
// "controller" a client sees is an alive broker picked at random (clients
// cannot reach controllers), -1 when it is not among the brokers listed;
// without an authorizer every cluster operation is allowed. On a controller
// listener (ControllerApis.handleDescribeCluster) the roles swap: only
// CONTROLLER is served, the "brokers" are the controllers (the static voters
// of controller.quorum.voters) and the controller id is the active one, which
// is how `--bootstrap-controller` tools find the quorum.

#include <algorithm>

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/raft_driver.h"
#include "broker/run_on.h"
#include "broker/metadata/metadata_publisher.h"
#include "broker/metadata/quorum_voters.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "config/broker_config.h"
#include "protocol/messages/describe_cluster.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::describe_cluster_request;
using protocol::msg::describe_cluster_response;

constexpr int8_t endpoint_broker = 1;
constexpr int8_t endpoint_controller = 2;

// The cluster's authorized operations (Kafka's computeDescribeClusterResponse):
// none without DESCRIBE on the cluster; without an authorizer every
// operation Kafka lists for the cluster.
int32_t operations_of(const request_context& ctx) {
  if (!authorize(ctx, api_acl(60, "cluster_operations"))) return 0;
  return authorized_operations(ctx, controller::acl_resource_type::cluster, controller::acl_cluster_name);
}

const char* endpoint_name(int8_t type) { return type == endpoint_controller ? "CONTROLLER" : "BROKER"; }

describe_cluster_response endpoint_error(int16_t version, int8_t requested, int8_t served) {
  describe_cluster_response r;
  if (requested != endpoint_controller && requested != endpoint_broker) {
    r.error_code = static_cast<int16_t>(version == 0 ? error_code::invalid_request : error_code::unsupported_endpoint_type);
    r.error_message = "Unsupported endpoint type " + std::to_string(requested);
  } else {
    r.error_code = static_cast<int16_t>(version == 0 ? error_code::invalid_request : error_code::mismatched_endpoint_type);
    r.error_message = std::string("The request was sent to an endpoint of type ") + endpoint_name(served) +
                      ", but we wanted an endpoint of type " + endpoint_name(requested);
  }
  return r;
}

bool on_controller_listener(const request_context& ctx) {
  const auto* cfg = ctx.services->config;
  if (!cfg) return false;
  const auto& names = cfg->controller_listener_names;
  return std::find(names.begin(), names.end(), ctx.listener_name) != names.end();
}

// The voters: controller.quorum.voters, or a dynamic quorum's newest set
// as the raft driver knows it.
describe_cluster_response controllers(const request_context& ctx, const describe_cluster_request& request,
                                      const std::vector<quorum_voter>& voters) {
  const broker_services& s = *ctx.services;
  describe_cluster_response response;
  response.cluster_id = s.cluster_id;
  response.endpoint_type = endpoint_controller;
  for (const auto& v : voters) {
    if (v.id < 0) continue;  // a bootstrap server, not a voter
    describe_cluster_response::describe_cluster_broker out;
    out.broker_id = v.id;
    out.host = v.host;
    out.port = v.port;
    response.brokers.push_back(std::move(out));
  }
  // The quorum's leader, as this node knows it.
  response.controller_id = s.raft ? s.raft->leader_id_now() : -1;
  if (request.include_cluster_authorized_operations) response.cluster_authorized_operations = operations_of(ctx);
  return response;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<describe_cluster_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const int8_t served = on_controller_listener(ctx) ? endpoint_controller : endpoint_broker;
  if (request->endpoint_type != served)
    co_return respond(ctx, endpoint_error(ctx.api_version, request->endpoint_type, served));
  if (served == endpoint_controller) {
    // On a controller listener it needs ALTER on the cluster (Kafka's
    // ControllerApis), not only on a broker's.
    if (const api_acl_check& check = api_acl(60, "controller"); !authorize(ctx, check)) {
      describe_cluster_response refused;
      refused.error_code = static_cast<int16_t>(check.refusal);
      refused.error_message = cluster_refusal_message(ctx, check.operation);
      co_return respond(ctx, refused);
    }
    std::vector<quorum_voter> voters = parse_quorum_voters(ctx.services->config->controller_quorum_voters);
    if (raft_driver* raft = ctx.services->raft)
      voters = co_await run_on(raft->strand(), [raft] { return raft->voters(); });
    co_return respond(ctx, controllers(ctx, *request, voters));
  }
  const broker_services& s = *ctx.services;
  auto image = s.metadata->image();

  describe_cluster_response response;
  response.cluster_id = s.cluster_id;
  response.endpoint_type = endpoint_broker;
  std::vector<int32_t> alive;
  for (const auto& [id, endpoint] : image->endpoints(ctx.listener_name)) {
    const auto* b = image->broker(id);
    if (!b) continue;
    if (b->fenced && !request->include_fenced_brokers) continue;
    describe_cluster_response::describe_cluster_broker out;
    out.broker_id = id.value;
    out.host = endpoint.host;
    out.port = endpoint.port;
    out.rack = b->rack;
    out.is_fenced = b->fenced;
    response.brokers.push_back(std::move(out));
    if (!b->fenced) alive.push_back(id.value);
  }
  // Kafka picks at random; spreading by correlation id is as good for
  // clients and keeps answers reproducible.
  if (!alive.empty()) response.controller_id = alive[static_cast<uint32_t>(ctx.correlation_id) % alive.size()];
  if (request->include_cluster_authorized_operations) response.cluster_authorized_operations = operations_of(ctx);
  co_return respond(ctx, response);
}

}  // namespace

api_handler describe_cluster_handler() { return {60, 0, 2, &handle}; }

}  // namespace hw::broker
