// AddOffsetsToTxn (key 25), versions 0-4: a transactional producer is about
// to commit a group's offsets in its transaction (sendOffsetsToTransaction),
// so the group's __consumer_offsets partition joins the transaction and
// gets its marker (Kafka's KafkaApis.handleAddOffsetsToTxnRequest: the
// coordinator's add-partitions rules for that one partition).

#include "broker/group/group_coordinator.h"
#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "broker/topics.h"
#include "broker/txn/txn_requests.h"
#include "protocol/error_code.h"
#include "protocol/messages/add_offsets_to_txn.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::add_offsets_to_txn_request;
using protocol::msg::add_offsets_to_txn_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<add_offsets_to_txn_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const broker_services& s = *ctx.services;
  const std::string& id = request->transactional_id;
  // WRITE on the transactional id, then READ on the group.
  for (auto [check, refusal] : {std::pair{"transactional_id", error_code::transactional_id_authorization_failed},
                                std::pair{"group", error_code::group_authorization_failed}}) {
    const std::string& name = std::string_view(check) == "group" ? request->group_id : id;
    if (authorize(ctx, api_acl(25, check), name)) continue;
    add_offsets_to_txn_response response;
    response.error_code = static_cast<int16_t>(refusal);
    co_return respond(ctx, response);
  }
  if (id.empty()) {  // Kafka's coordinator refuses an empty id before anything else
    add_offsets_to_txn_response response;
    response.error_code = static_cast<int16_t>(error_code::invalid_request);
    co_return respond(ctx, response);
  }
  const txn::txn_partitions partitions{{std::string(consumer_offsets_topic), s.groups->partition_for(request->group_id)}};
  const txn::producer_id_and_epoch producer{request->producer_id, request->producer_epoch};
  auto needs = [](const txn::txn_shard&) { return false; };
  auto issue = [&](txn::txn_shard& sh, txn::request_token token, std::optional<int64_t>, int64_t now) {
    sh.add_partitions(token, id, producer, partitions, ctx.api_version >= 4 ? 2 : 0, now);
  };
  error_code e = error_code::none;
  auto answer = co_await txn::call_txn_shard<error_code>(s, id, needs, issue, &e);
  add_offsets_to_txn_response response;
  response.error_code = static_cast<int16_t>(answer ? *answer : e);
  co_return respond(ctx, response);
}

}  // namespace

api_handler add_offsets_to_txn_handler() { return {25, 0, 4, &handle}; }

}  // namespace hw::broker
