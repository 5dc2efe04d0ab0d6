// BeginQuorumEpoch (key 53), versions 0-1: a new leader of the metadata quorum
// announces its epoch.
// Served on controller listeners only; the raft driver answers (see
// broker/metadata/raft_driver.h).

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/raft_driver.h"
#include "broker/services.h"
#include "protocol/messages/begin_quorum_epoch.h"

namespace hw::broker {
namespace {

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<protocol::msg::begin_quorum_epoch_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<protocol::msg::begin_quorum_epoch_response>(ctx, api_acl(53, "cluster")))
    co_return respond(ctx, *refused);
  raft_driver* raft = ctx.services->raft;
  if (!raft) co_return handler_result::close("begin_quorum_epoch on a node without a metadata quorum");
  auto response = co_await raft->begin_quorum_epoch(*request);
  co_return respond(ctx, response);
}

}  // namespace

api_handler begin_quorum_epoch_handler() { return {53, 0, 1, &handle}; }

}  // namespace hw::broker
