// UpdateFeatures (key 57), versions 0-2: kafka-features.sh upgrade,
// downgrade and disable. Served on broker listeners, which forward it to
// the active controller, and on controller listeners; ALTER on the cluster.
// The active controller checks it as Kafka 4.3.1's does
// (controller/feature_control.h) against every registered broker and
// controller and its own supported ranges; kraft.version, which the raft
// log holds, through the raft driver. Answered once the new levels commit.

#include "broker/features.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/controller_call.h"
#include "broker/security/authorization.h"
#include "protocol/messages/update_features.h"

namespace hw::broker {
namespace {

using protocol::msg::update_features_request;
using protocol::msg::update_features_response;

// On the controller strand (the raft driver's).
controller::feature_update_context feature_context(const raft_driver& raft) {
  controller::feature_update_context c;
  c.node_id = raft.node_id();
  for (const supported_feature& f : supported_features())
    c.local_supported[std::string(f.name)] = {f.min_version, f.max_version};
  for (const quorum_voter& v : raft.voters())
    if (v.id >= 0) c.quorum_node_ids.push_back(v.id);
  c.kraft_version = raft.kraft_version();
  c.upgrade_kraft_version = [&raft](int16_t level, bool validate_only) {
    return raft.upgrade_kraft_version(level, validate_only);
  };
  return c;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<update_features_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (const api_acl_check& check = api_acl(57, "cluster"); !authorize(ctx, check))
    co_return respond(ctx, refused_response(*request, ctx.api_version, check.refusal,
                                            cluster_refusal_message(ctx, check.operation)));
  const update_features_request& req = *request;
  const int16_t version = ctx.api_version;
  const raft_driver* raft = ctx.services->raft;
  auto response = co_await call_controller<update_features_response>(
      ctx, req, [&req, version, raft](controller::quorum_controller& qc, int64_t) {
        return qc.update_features(req, version, feature_context(*raft));
      });
  co_return respond(ctx, response);
}

}  // namespace

api_handler update_features_handler() { return {57, 0, 2, &handle}; }

}  // namespace hw::broker
