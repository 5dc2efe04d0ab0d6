// UpdateRaftVoter (key 82), version 0, on controller listeners only
// (KIP-853): a voter of a dynamic quorum tells the leader its current
// endpoints and kraft.version range, which replace its entry in the voter
// set (raft_driver::update_raft_voter, raft_membership::update). The
// response carries no message, only a code and the leader the node knows.
// CLUSTER_ACTION on the cluster.

#include "broker/handlers/handlers.h"
#include "broker/metadata/raft_driver.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/messages/update_raft_voter.h"

namespace hw::broker {
namespace {

using protocol::msg::update_raft_voter_request;
using protocol::msg::update_raft_voter_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<update_raft_voter_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (auto refused = top_level_refusal<update_raft_voter_response>(ctx, api_acl(82, "cluster")))
    co_return respond(ctx, *refused);
  raft_driver* raft = ctx.services->raft;
  if (!raft) {
    update_raft_voter_response r;
    r.error_code = static_cast<int16_t>(protocol::error_code::not_leader_or_follower);
    co_return respond(ctx, r);
  }
  co_return respond(ctx, co_await raft->update_raft_voter(*request));
}

}  // namespace

api_handler update_raft_voter_handler() { return {82, 0, 0, &handle}; }

}  // namespace hw::broker
