// AddRaftVoter (key 80) and RemoveRaftVoter (key 81), KIP-853: a controller
// joins or leaves a dynamic metadata quorum (kafka-metadata-quorum.sh
// add-controller / remove-controller). The raft driver of the quorum's
// leader checks it as Kafka's does (raft_driver::add_raft_voter,
// controller/raft/raft_membership.h) and answers once the change is
// committed; a broker listener of another node forwards it to the leader,
// as Kafka's brokers do. ALTER on the cluster.

#include <chrono>

#include "broker/handlers/handlers.h"
#include "broker/metadata/raft_driver.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "protocol/error_code.h"
#include "protocol/messages/add_raft_voter.h"
#include "protocol/messages/remove_raft_voter.h"

namespace hw::broker {
namespace {

using protocol::error_code;

template <class Response>
Response refused(error_code e, std::optional<std::string> message) {
  Response r;
  r.error_code = static_cast<int16_t>(e);
  r.error_message = std::move(message);
  return r;
}

template <class Request, class Response, int16_t Key>
asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<Request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  if (const api_acl_check& check = api_acl(Key, "cluster"); !authorize(ctx, check))
    co_return respond(ctx, refused<Response>(check.refusal, std::string(authorization_error_message(check.refusal))));
  raft_driver* raft = ctx.services->raft;
  if (!raft) co_return respond(ctx, refused<Response>(error_code::not_controller, std::nullopt));
  Response answer_here;
  if constexpr (Key == 80) {
    answer_here = co_await raft->add_raft_voter(*request);
  } else {
    answer_here = co_await raft->remove_raft_voter(*request);
  }
  // Answered by the leader here, or refused on a controller listener.
  if (answer_here.error_code != static_cast<int16_t>(error_code::not_leader_or_follower) ||
      ctx.services->is_controller_listener(ctx.listener_name))
    co_return respond(ctx, answer_here);
  // A broker forwards it to the quorum's leader, which answers once the
  // change is committed.
  std::vector<uint8_t> body(ctx.body.begin(), ctx.body.end());
  client_response answer;
  auto ec = co_await raft->call_leader(Key, ctx.api_version, std::move(body), std::chrono::seconds(30), &answer);
  if (!ec) co_return handler_result::respond(encode_raw_response(ctx.correlation_id, ctx.response_header_version, answer.body()));
  co_return respond(ctx, refused<Response>(error_code::not_controller, std::nullopt));
}

}  // namespace

api_handler add_raft_voter_handler() {
  return {80, 0, 1, &handle<protocol::msg::add_raft_voter_request, protocol::msg::add_raft_voter_response, 80>};
}
api_handler remove_raft_voter_handler() {
  return {81, 0, 0, &handle<protocol::msg::remove_raft_voter_request, protocol::msg::remove_raft_voter_response, 81>};
}

}  // namespace hw::broker
