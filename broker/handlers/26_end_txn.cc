// EndTxn (key 26), versions 0-5: a transactional producer commits or aborts
// its transaction. The coordinator answers once its PrepareCommit /
// PrepareAbort record is durable and writes the markers after
// (broker/txn/txn_shard.h). Version 5 is a transactions-v2 client: the
// epoch goes up at every end and the answer carries the id and epoch to go
// on with (Kafka's KafkaApis.handleEndTxnRequest).

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/services.h"
#include "broker/txn/txn_requests.h"
#include "protocol/error_code.h"
#include "protocol/messages/end_txn.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::end_txn_request;
using protocol::msg::end_txn_response;

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<end_txn_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  const std::string& id = request->transactional_id;
  const int16_t client_version = ctx.api_version >= 5 ? 2 : 0;
  const txn::producer_id_and_epoch producer{request->producer_id, request->producer_epoch};
  const bool commit = request->committed;
  end_txn_response response;
  if (!authorize(ctx, api_acl(26, "transactional_id"), id)) {
    response.error_code = static_cast<int16_t>(error_code::transactional_id_authorization_failed);
    co_return respond(ctx, response);
  }
  if (id.empty()) {
    response.error_code = static_cast<int16_t>(error_code::invalid_request);
    co_return respond(ctx, response);
  }
  auto needs = [&](const txn::txn_shard& sh) { return sh.end_needs_producer_id(id, client_version); };
  auto issue = [&](txn::txn_shard& sh, txn::request_token token, std::optional<int64_t> fresh, int64_t now) {
    sh.end_txn(token, id, producer, commit, client_version, fresh, now);
  };
  error_code e = error_code::none;
  auto answer = co_await txn::call_txn_shard<txn::end_txn_result>(*ctx.services, id, needs, issue, &e);
  if (!answer) {
    response.error_code = static_cast<int16_t>(e);
  } else {
    response.error_code = static_cast<int16_t>(answer->error);
    response.producer_id = answer->producer_id;
    response.producer_epoch = answer->producer_epoch;
  }
  co_return respond(ctx, response);
}

}  // namespace

api_handler end_txn_handler() { return {26, 0, 5, &handle}; }

}  // namespace hw::broker
