// InitProducerId (key 22), versions 0-5 (6 is unstable in Kafka 4.3): a
// producer id for an idempotent producer, at epoch 0.
//
// Kafka's rules (KafkaApis.handleInitProducerIdRequest, TransactionCoordinator
// .handleInitProducerId): producer id and epoch (v3+) are both -1 or both
// set, else INVALID_REQUEST; without a transactional id every request gets
// a fresh id at epoch 0 (the given id and epoch do not matter); an empty
// transactional id is INVALID_REQUEST. A transactional id belongs to the
// transaction coordinator, which this broker does not run yet: it answers
// NOT_COORDINATOR, so a transactional producer keeps looking for one.

#include "broker/handlers/handlers.h"
#include "broker/producer_id_manager.h"
#include "broker/services.h"
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
  const bool no_id = request->producer_id == -1 && request->producer_epoch == -1;
  const bool both = request->producer_id != -1 && request->producer_epoch != -1;
  if (!no_id && !both) co_return respond(ctx, failed(error_code::invalid_request));
  if (request->transactional_id) {
    co_return respond(ctx, failed(request->transactional_id->empty() ? error_code::invalid_request
                                                                     : error_code::not_coordinator));
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
