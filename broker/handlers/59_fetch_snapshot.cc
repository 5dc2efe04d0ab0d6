// FetchSnapshot (key 59), versions 0-1: a replica of the metadata log that
// fell below the leader's log start copies the leader's snapshot, chunk by
// chunk. Served on controller listeners only; the raft driver answers.

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/raft_driver.h"
#include "broker/services.h"
#include "protocol/messages/fetch_snapshot.h"

namespace hw::broker {
namespace {

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<protocol::msg::fetch_snapshot_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<protocol::msg::fetch_snapshot_response>(ctx, api_acl(59, "cluster")))
    co_return respond(ctx, *refused);
  raft_driver* raft = ctx.services->raft;
  if (!raft) co_return handler_result::close("FetchSnapshot on a node without a metadata quorum");
  auto answer = co_await raft->fetch_snapshot(*request);
  co_return respond(ctx, answer.response);
}

}  // namespace

api_handler fetch_snapshot_handler() { return {59, 0, 1, &handle}; }

}  // namespace hw::broker
