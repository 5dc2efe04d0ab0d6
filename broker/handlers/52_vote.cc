// Vote (key 52), versions 0-2: a candidate (or, with PreVote, a prospective
// voter) of the metadata quorum asks for this voter's vote.
// Served on controller listeners only; the raft driver answers (see
// broker/metadata/raft_driver.h).

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/metadata/raft_driver.h"
#include "broker/services.h"
#include "protocol/messages/vote.h"

namespace hw::broker {
namespace {

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<protocol::msg::vote_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // Only other nodes send it: CLUSTER_ACTION, else refused at the top level.
  if (auto refused = top_level_refusal<protocol::msg::vote_response>(ctx, api_acl(52, "cluster")))
    co_return respond(ctx, *refused);
  raft_driver* raft = ctx.services->raft;
  if (!raft) co_return handler_result::close("vote on a node without a metadata quorum");
  auto response = co_await raft->vote(*request);
  co_return respond(ctx, response);
}

}  // namespace

api_handler vote_handler() { return {52, 0, 2, &handle}; }

}  // namespace hw::broker
