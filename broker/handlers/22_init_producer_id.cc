// InitProducerId (key 22), versions 0-5 (6 is unstable in Kafka 4.3): a
// producer id for an idempotent producer, at epoch 0.
//
// Kafka's rules (KafkaApis.handleInitProducerIdRequest, TransactionCoordinator
// .handleInitProducerId): producer id and epoch (v3+) are both -1 or both
// set, else INVALID_REQUEST; without a transactional id every request gets
// a fresh id at epoch 0 (the given id and epoch do not matter); an empty
// transactional id is INVALID_REQUEST. A transactional id goes to the shard
// of the transaction coordinator that owns it (broker/txn/txn_shard.h):
// NOT_COORDINATOR when this broker does not lead its __transaction_state
// partition, so the producer looks it up again. KIP-939's two-phase commit
// (Enable2Pc, v6) is not served: the version stops at 5.

#include "broker/handlers/handlers.h"
#include "broker/security/authorization.h"
#include "broker/producer_id_manager.h"
#include "broker/services.h"
#include "broker/txn/txn_requests.h"
#include "protocol/error_code.h"
#include "protocol/messages/init_producer_id.h"

namespace hw::broker {
namespace {

using protocol::error_code;
using protocol::msg::init_producer_id_request;
using protocol::msg::init_producer_id_response;

init_producer_id_response failed(error_code e) {
  init_producer_id_response r;
  r.error_code = static_cast<int16_t>(e);
  r.producer_id = -1;
  r.producer_epoch = -1;
  return r;
}

asio::awaitable<handler_result> handle(request_context& ctx) {
  std::string error;
  auto request = decode_request<init_producer_id_request>(ctx, &error);
  if (!request) co_return handler_result::close(error);
  // WRITE on the transactional id; an idempotent producer needs
  // IDEMPOTENT_WRITE on the cluster or WRITE on some topic.
  if (request->transactional_id) {
    if (!authorize(ctx, api_acl(22, "transactional_id"), *request->transactional_id))
      co_return respond(ctx, failed(error_code::transactional_id_authorization_failed));
  } else if (authorizer_configured(ctx) && !authorize(ctx, api_acl(22, "idempotent"), {}, false) &&
             !authorize_any(ctx, api_acl(22, "idempotent_any_topic"))) {
    co_return respond(ctx, failed(error_code::cluster_authorization_failed));
  }
  const bool no_id = request->producer_id == -1 && request->producer_epoch == -1;
  const bool both = request->producer_id != -1 && request->producer_epoch != -1;
  if (!no_id && !both) co_return respond(ctx, failed(error_code::invalid_request));
  if (request->transactional_id) {
    const std::string& id = *request->transactional_id;
    if (id.empty()) co_return respond(ctx, failed(error_code::invalid_request));
    std::optional<txn::producer_id_and_epoch> expected;
    if (both) expected = txn::producer_id_and_epoch{request->producer_id, request->producer_epoch};
    const int32_t timeout_ms = request->transaction_timeout_ms;
    auto needs = [&](const txn::txn_shard& shard) { return shard.init_needs_producer_id(id, expected); };
    auto issue = [&](txn::txn_shard& shard, txn::request_token token, std::optional<int64_t> fresh, int64_t now) {
      shard.init_producer_id(token, id, timeout_ms, expected, fresh, now);
    };
    error_code e = error_code::none;
    auto answer = co_await txn::call_txn_shard<txn::init_producer_id_result>(*ctx.services, id, needs, issue, &e);
    if (!answer) co_return respond(ctx, failed(e));
    if (answer->error != error_code::none) co_return respond(ctx, failed(answer->error));
    init_producer_id_response response;
    response.producer_id = answer->producer_id;
    response.producer_epoch = answer->producer_epoch;
    co_return respond(ctx, response);
  }
  producer_id_manager* ids = ctx.services->producer_ids;
  if (!ids) co_return respond(ctx, failed(error_code::coordinator_not_available));
  producer_id_result next = co_await ids->next_id();
  if (next.error != error_code::none) co_return respond(ctx, failed(next.error));
  init_producer_id_response response;
  response.producer_id = next.id;
  response.producer_epoch = 0;
  co_return respond(ctx, response);
}

}  // namespace

api_handler init_producer_id_handler() { return {22, 0, 5, &handle}; }

}  // namespace hw::broker
