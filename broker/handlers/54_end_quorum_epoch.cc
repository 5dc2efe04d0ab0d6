// EndQuorumEpoch (key 54), versions 0-1: a leader of the metadata quorum
// resigning names its preferred successors.
// Served on controller listeners only; the raft driver answers (see
// broker/metadata/raft_driver.h).

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/raft_driver.h"
#include "broker/services.h"
#include "protocol/messages/end_quorum_epoch.h"

namespace hw::broker {
namespace {

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<protocol::msg::end_quorum_epoch_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<protocol::msg::end_quorum_epoch_response>(ctx, api_acl(54, "cluster")))
    co_return respond(ctx, *refused);
  raft_driver* raft = ctx.services->raft;
  if (!raft) co_return handler_result::close("end_quorum_epoch on a node without a metadata quorum");
  auto response = co_await raft->end_quorum_epoch(*request);
  co_return respond(ctx, response);
}

}  // namespace

api_handler end_quorum_epoch_handler() { return {54, 0, 1, &handle}; }

}  // namespace hw::broker
